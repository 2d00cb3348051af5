"use strict";
(() => {
  // ---------------------------------------------------------------- RFC 6902 JSON Patch (apply)

  class PatchError extends Error {}

  /** Splits a JSON Pointer (RFC 6901) into unescaped reference tokens. */
  function parsePointer(pointer) {
    if (pointer === "") return [];
    if (typeof pointer !== "string" || pointer[0] !== "/") throw new PatchError("bad pointer: " + pointer);
    return pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  }

  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const hasOwn = (o, k) => Object.prototype.hasOwnProperty.call(o, k);

  function arrayIndex(array, token, forInsert) {
    if (forInsert && token === "-") return array.length;
    if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError("bad array index: " + token);
    const index = Number(token);
    if (index > array.length || (!forInsert && index === array.length)) {
      throw new PatchError("array index out of range: " + token);
    }
    return index;
  }

  function child(node, token) {
    if (Array.isArray(node)) return node[arrayIndex(node, token, false)];
    if (isObject(node) && hasOwn(node, token)) return node[token];
    throw new PatchError("no such member: " + token);
  }

  function getAt(doc, tokens) {
    let node = doc;
    for (const token of tokens) node = child(node, token);
    return node;
  }

  function addAt(doc, tokens, value) {
    if (tokens.length === 0) return value;
    const parent = getAt(doc, tokens.slice(0, -1));
    const key = tokens[tokens.length - 1];
    if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value);
    else if (isObject(parent)) parent[key] = value;
    else throw new PatchError("cannot add to a scalar");
    return doc;
  }

  function removeAt(doc, tokens) {
    if (tokens.length === 0) throw new PatchError("cannot remove the whole document");
    const parent = getAt(doc, tokens.slice(0, -1));
    const key = tokens[tokens.length - 1];
    if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, key, false), 1)[0];
    if (isObject(parent) && hasOwn(parent, key)) {
      const value = parent[key];
      delete parent[key];
      return value;
    }
    throw new PatchError("no such member: " + key);
  }

  function deepEqual(a, b) {
    if (a === b) return true;
    if (Array.isArray(a)) {
      return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
    }
    if (isObject(a) && isObject(b)) {
      const keys = Object.keys(a);
      return keys.length === Object.keys(b).length && keys.every((k) => hasOwn(b, k) && deepEqual(a[k], b[k]));
    }
    return false;
  }

  const clone = (v) => (v === undefined ? v : JSON.parse(JSON.stringify(v)));

  /** Applies an RFC 6902 patch; returns the new document (the input may be changed in place). */
  function applyPatch(doc, patch) {
    if (!Array.isArray(patch)) throw new PatchError("a patch is an array");
    for (const op of patch) {
      const path = parsePointer(op.path);
      switch (op.op) {
        case "add":
          if (!("value" in op)) throw new PatchError("add without value");
          doc = addAt(doc, path, clone(op.value));
          break;
        case "remove":
          removeAt(doc, path);
          break;
        case "replace":
          if (!("value" in op)) throw new PatchError("replace without value");
          if (path.length === 0) { doc = clone(op.value); break; }
          removeAt(doc, path);
          doc = addAt(doc, path, clone(op.value));
          break;
        case "move": {
          const from = parsePointer(op.from);
          if (op.path === op.from) break;
          if (op.path.startsWith(op.from + "/")) throw new PatchError("cannot move into a child of itself");
          if (from.length === 0) throw new PatchError("cannot move the whole document");
          doc = addAt(doc, path, removeAt(doc, from));
          break;
        }
        case "copy":
          doc = addAt(doc, path, clone(getAt(doc, parsePointer(op.from))));
          break;
        case "test":
          if (!deepEqual(getAt(doc, path), op.value)) throw new PatchError("test failed at " + op.path);
          break;
        default:
          throw new PatchError("unknown op: " + op.op);
      }
    }
    return doc;
  }

  // ---------------------------------------------------------------- Elements and small helpers

  const $ = (id) => document.getElementById(id);
  const el = {
    connection: $("connection"),
    notice: $("notice"),
    skipLink: $("skip-link"),
    tabs: Array.from(document.querySelectorAll('[role="tab"]')),
    panels: { search: $("panel-search"), products: $("panel-products") },
    searchTitle: $("search-title"),
    searchForm: $("search-form"),
    searchText: $("search-text"),
    searchGo: $("search-go"),
    searchCancel: $("search-cancel"),
    searchSpinner: $("search-spinner"),
    searchStatus: $("search-status"),
    searchError: $("search-error"),
    recent: $("recent"),
    recentList: $("recent-list"),
    photos: $("photos"),
    photosSkeleton: $("photos-skeleton"),
    photosEmpty: $("photos-empty"),
    photosEmptyTitle: $("photos-empty-title"),
    photosError: $("photos-error"),
    photosSentinel: $("photos-sentinel"),
    photosMore: $("photos-more"),
    photosEnd: $("photos-end"),
    pull: $("pull"),
    productsRefresh: $("products-refresh"),
    productsCancel: $("products-cancel"),
    productsSpinner: $("products-spinner"),
    productsStatus: $("products-status"),
    productsError: $("products-error"),
    productsMoreError: $("products-more-error"),
    products: $("products"),
    productsSkeleton: $("products-skeleton"),
    productsSentinel: $("products-sentinel"),
    productsMore: $("products-more"),
    productsEnd: $("products-end"),
    main: $("main"),
    topbar: document.querySelector(".topbar"),
    photoView: $("photo-view"),
    photoClose: $("photo-close"),
    photoTitle: $("photo-view-title"),
    photoError: $("photo-error"),
    photoSpinner: $("photo-spinner"),
    photoStatus: $("photo-status"),
    photoImage: $("photo-image"),
    photoOwner: $("photo-owner"),
    photoTaken: $("photo-taken"),
    photoViews: $("photo-views"),
    photoTags: $("photo-tags"),
    photoDescription: $("photo-description"),
    photoPage: $("photo-page"),
    photoCommentsStatus: $("photo-comments-status"),
    photoComments: $("photo-comments"),
  };

  const numberFormat = new Intl.NumberFormat();
  const fmt = (n) => (typeof n === "number" ? numberFormat.format(n) : "–");
  const trim = (text) => String(text || "").trim();
  /** The server's rule for `canSearch`, for text it has not seen yet (typed while it was unreachable). */
  const searchable = (text) => Array.from(trim(text)).length > 3;
  const quoted = (text) => "“" + text + "”";

  function make(tag, props, children) {
    const node = document.createElement(tag);
    if (props) {
      for (const [key, value] of Object.entries(props)) {
        if (key === "text") node.textContent = value;
        else if (key === "class") node.className = value;
        else node.setAttribute(key, value);
      }
    }
    for (const c of children || []) node.append(c);
    return node;
  }

  function setText(node, text) {
    if (node.textContent !== text) node.textContent = text;
  }

  function setAttr(node, name, value) {
    if (value === null || value === undefined) {
      if (node.hasAttribute(name)) node.removeAttribute(name);
    } else if (node.getAttribute(name) !== String(value)) {
      node.setAttribute(name, String(value));
    }
  }

  /**
   * Keyed list reconciliation: reuses elements by key, keeps the order of `items`. NB: moving a node out of
   * the document and back drops its focus; the focused element gets it back, so the focus stays on what the
   * user chose (a recent search that moves to the front) instead of falling to the page.
   */
  function reconcile(list, items, keyOf, create, update, removed) {
    const focused = list.contains(document.activeElement) ? document.activeElement : null;
    const existing = new Map();
    for (const node of Array.from(list.children)) existing.set(node.dataset.key, node);
    const seen = new Map();
    let cursor = list.firstElementChild;
    for (const item of items) {
      let key = String(keyOf(item));
      const count = seen.get(key) || 0;
      seen.set(key, count + 1);
      if (count > 0) key += "~" + count;
      let node = existing.get(key);
      if (node) existing.delete(key);
      else { node = create(item); node.dataset.key = key; }
      update(node, item);
      if (node === cursor) cursor = cursor.nextElementSibling;
      else list.insertBefore(node, cursor);
    }
    for (const node of existing.values()) {
      if (removed) removed(node);
      node.remove();
    }
    if (focused && focused.isConnected && document.activeElement !== focused) focused.focus({ preventScroll: true });
  }

  // ---------------------------------------------------------------- The URL: query, screen and open photo

  /** What the address says: `?q=` the query, `#search`, `#products` or `#photo/<id>` (over the search). */
  function readURL() {
    const q = new URLSearchParams(location.search).get("q");
    let hash = location.hash.slice(1);
    try {
      hash = decodeURIComponent(hash);
    } catch (error) {
      // a malformed escape: the hash as it is
    }
    if (hash.startsWith("photo/") && hash.length > 6) return { q: trim(q), screen: "search", photo: hash.slice(6) };
    return { q: trim(q), screen: hash === "products" ? "products" : "search", photo: null };
  }

  /** The address of the current screen; `push` adds a history entry (opening a photo), else it is replaced. */
  function writeURL(push) {
    const query = local.urlQuery;
    const photo = local.photoShown !== null ? local.photoShown : null;
    const hash = photo !== null ? "#photo/" + encodeURIComponent(photo) : "#" + local.screen;
    const url = location.pathname + (query ? "?q=" + encodeURIComponent(query) : "") + hash;
    const current = location.pathname + location.search + location.hash;
    if (push) history.pushState({ photo }, "", url);
    else if (url !== current) history.replaceState(history.state, "", url);
  }

  // ---------------------------------------------------------------- Session, commands, event stream

  const STORAGE_KEY = "vmhost.sessionId";
  const TYPED_KEY = "vmhost.typed";
  const RECENT_KEY = "vmhost.recent";
  let sessionId = sessionStorage.getItem(STORAGE_KEY);
  const state = { search: null, products: null, photo: null };
  let source = null;
  let everLive = false;
  let checking = false;
  let recovering = null;
  let reopenTimer = 0;
  let backoff = 1000;

  const sessionPath = () => "/v1/sessions/" + encodeURIComponent(sessionId);

  async function createSession() {
    const response = await fetch("/v1/sessions", { method: "POST" });
    if (response.status !== 201) throw new Error("could not create a session: HTTP " + response.status);
    const body = await response.json();
    sessionId = body.id;
    sessionStorage.setItem(STORAGE_KEY, sessionId);
    document.documentElement.dataset.session = sessionId;
  }

  /**
   * Replaces a lost session (expired, or the server restarted without Redis) and reconnects. What the user
   * had is replayed into the new one once its snapshots arrive (`replay`): the query, the typed text, the
   * open photo; the recent searches of the old session stay on screen.
   */
  function recover() {
    if (!recovering) {
      recovering = (async () => {
        try {
          const lost = state.search !== null || everLive;
          if (state.search) carryRecent(state.search.recentSearches);
          await createSession();
          state.search = null;
          state.products = null;
          state.photo = null;
          local.photoClosing = false;
          local.productsAutoLoaded = false;
          local.photosLoadKey = null;
          local.productsLoadKey = null;
          local.photosLoadAfter = 0;
          local.productsLoadAfter = 0;
          local.sessionGeneration += 1;
          local.sentVisibleKey = "";
          local.replayPending = true;
          local.newSession = lost;
          scheduleRender();
          openStream();
        } catch (error) {
          console.warn(error);
          scheduleReopen(true);
        } finally {
          recovering = null;
        }
      })();
    }
    return recovering;
  }

  /** POSTs a command; answers the Response or null on a network failure. */
  async function command(path, body) {
    const init = { method: "POST" };
    if (body !== undefined) {
      init.headers = { "Content-Type": "application/json" };
      init.body = JSON.stringify(body);
    }
    try {
      if (recovering) await recovering;
      const response = await settled(await fetch(sessionPath() + "/" + path, init));
      if (response.status === 404 && (await errorCode(response)) === "session_not_found") recover();
      else if (!response.ok && response.status !== 409) console.warn("POST " + path + ": HTTP " + response.status);
      return response;
    } catch (error) {
      console.warn("POST " + path + " failed", error);
      // NB: a failed request says the server is gone only when the stream is not up either.
      if (!local.offline && (!source || source.readyState !== EventSource.OPEN)) streamFailed();
      return null;
    }
  }

  /**
   * The answer with its body read to the end. NB: most callers look at the status only; a body nobody reads
   * is never finished (Chromium then records no Resource Timing entry for the request either), so it is read
   * here, and the answer handed on holds it for a caller that wants it.
   */
  async function settled(response) {
    const text = await response.text();
    const empty = response.status === 204 || response.status === 205 || response.status === 304;
    return new Response(empty ? null : text, {
      status: response.status, statusText: response.statusText, headers: response.headers,
    });
  }

  /** The `error.code` of an error answer (read from a copy, so the caller can still read the body). */
  async function errorCode(response) {
    try {
      const body = await response.clone().json();
      return body && body.error ? body.error.code : null;
    } catch (error) {
      return null;
    }
  }

  function setConnection(kind) {
    const labels = {
      connecting: "Connecting…", live: "Live", reconnecting: "Offline · reconnecting…",
    };
    setAttr(el.connection, "data-state", kind);
    setText(el.connection.querySelector(".connection-label"), labels[kind]);
    setAttr(el.connection, "title", "Connection: " + labels[kind]);
  }

  let noticeTimer = 0;

  /** The line under the top bar: the connection lost (stays), or back (goes after a while). */
  function showNotice(kind, text) {
    clearTimeout(noticeTimer);
    setAttr(el.notice, "data-state", kind);
    setText(el.notice, text);
    el.notice.hidden = false;
    if (kind === "reconnected") {
      noticeTimer = setTimeout(() => { el.notice.hidden = true; setAttr(el.notice, "data-state", "none"); }, 8000);
    }
  }

  let offlineTimer = 0;

  /**
   * The stream is down: typed text is kept from now on; the notice comes after a moment, so that a stream that
   * reconnects at once (a node handing its sessions over) does not flash it.
   */
  function goneOffline() {
    if (local.offline) return;
    local.offline = true;
    setConnection("reconnecting");
    clearTimeout(offlineTimer);
    offlineTimer = setTimeout(() => {
      if (!local.offline) return;
      local.offlineShown = true;
      showNotice("offline", "The server can’t be reached right now. Your page stays as it is and what you type "
        + "is kept; it reconnects by itself.");
    }, 1500);
  }

  function backOnline() {
    if (!local.offline) return;
    clearTimeout(offlineTimer);
    local.offline = false;
    local.announceReconnect = local.offlineShown;
    local.offlineShown = false;
    local.sentVisibleKey = ""; // counts asked for before the outage may have died with the server: ask again
  }

  function openStream() {
    clearTimeout(reopenTimer);
    if (source) source.close();
    if (!local.offline) setConnection(everLive ? "reconnecting" : "connecting");
    const stream = new EventSource(sessionPath() + "/events");
    source = stream;
    stream.onopen = () => {
      if (stream !== source) return;
      everLive = true;
      backoff = 1000;
      setConnection("live");
      backOnline();
      local.replayPending = true;
      scheduleRender();
    };
    stream.onerror = () => {
      if (stream !== source) return;
      streamFailed();
    };
    for (const name of ["search", "products", "photo"]) {
      stream.addEventListener(name + ".snapshot", (event) => {
        if (stream !== source) return;
        state[name] = JSON.parse(event.data);
        scheduleRender();
      });
      stream.addEventListener(name + ".patch", (event) => {
        if (stream !== source) return;
        try {
          if (state[name] === null) throw new PatchError("patch before snapshot");
          state[name] = applyPatch(state[name], JSON.parse(event.data));
        } catch (error) {
          console.warn("resynchronising after a bad patch:", error);
          openStream(); // a new EventSource sends no Last-Event-ID, so the server starts with snapshots
          return;
        }
        scheduleRender();
      });
    }
  }

  function scheduleReopen(recreate) {
    clearTimeout(reopenTimer);
    reopenTimer = setTimeout(() => (recreate ? recover() : checkSession()), backoff);
    backoff = Math.min(backoff * 2, 15000);
  }

  /** The stream failed: find out whether the session still exists; EventSource stops retrying on a 404. */
  function streamFailed() {
    if (everLive) goneOffline();
    else setConnection("reconnecting");
    checkSession();
  }

  async function checkSession() {
    if (checking) return;
    checking = true;
    try {
      const response = await fetch(sessionPath(), { cache: "no-store" });
      if (response.status === 404) {
        await recover();
      } else if (!source || source.readyState === EventSource.CLOSED) {
        if (response.ok) openStream();
        else scheduleReopen(false);
      }
    } catch (error) {
      // The server is unreachable; EventSource keeps retrying unless it gave up.
      if (!source || source.readyState === EventSource.CLOSED) scheduleReopen(false);
    } finally {
      checking = false;
    }
  }

  // ---------------------------------------------------------------- Client-side (non-state) bits

  const initialURL = readURL();
  const local = {
    screen: initialURL.screen,
    urlQuery: initialURL.q,
    textInFlight: false,
    textPending: null,
    // The search box holds text the server has not acknowledged (typed while it was unreachable, or not sent
    // yet): the box is not overwritten from the state, and the text is sent once the server is back.
    boxDirty: false,
    pendingExecute: null, // Go pressed while the server was unreachable: run on reconnection
    offline: false,
    offlineShown: false, // the offline notice was shown: "Reconnected" follows it
    announceReconnect: false,
    replayPending: true, // compare the state with the URL and the box once the snapshots are there
    newSession: false, // the session was replaced: the replay says the results were reloaded
    carriedRecent: [], // recent searches of a lost session, still shown
    visiblePhotos: new Set(),
    visibleTimer: 0,
    sentVisibleKey: "",
    photosLoadKey: null,
    productsLoadKey: null,
    // No automatic load-more until the state reaches this version: the `version` of the last load-more's
    // `202` (the state that shows it loading), or Infinity while it is unanswered. Without it a patch that
    // arrives meanwhile (metadata of visible photos) looks like a new chance, and a second load-more races
    // the first and is refused (409).
    photosLoadAfter: 0,
    productsLoadAfter: 0,
    sessionGeneration: 0, // bumped when a new session replaces a lost one: late answers of the old are dropped
    productsAutoLoaded: false,
    // What the search in flight is: "search" (page 1 of `searchQuery`) or "more" (the next page), as this page
    // asked for it; the state does not say. `failedQuery` is the query of the last search that failed.
    searchKind: null,
    searchQuery: null,
    failedQuery: null,
    cancelledQuery: null,
    wasSearching: false,
    productsKind: null, // "refresh" or "more": what the products' last load was
    // Commands the server refused (e.g. 429 rate_limited), shown where a failure of their load would show.
    refused: { search: null, more: null, products: null, productsMore: null },
    refusedQuery: null, // the query of the refused search (the server's text may be another by then)
    // The photo the detail view shows, as the URL names it (`#photo/<id>`): set at once on a click (before the
    // server's state arrives), null after close. `photoClosing`: a close on its way to the server.
    photoShown: initialURL.photo,
    photoClosing: false,
    photoOpener: null,
    photoOpenError: null, // an error answer to photo/open (the server's state stays as it was)
  };

  function carryRecent(list) {
    const known = new Set(list.map((r) => r.searchString));
    local.carriedRecent = list.concat(local.carriedRecent.filter((r) => !known.has(r.searchString))).slice(0, 10);
    try {
      sessionStorage.setItem(RECENT_KEY, JSON.stringify(local.carriedRecent));
    } catch (error) {
      // storage full or disabled: the list stays in memory
    }
  }

  /** Sends the search text; at most one request in flight, the latest text wins, order is kept. */
  function sendText(text, autoSearch) {
    local.textPending = { text, autoSearch: autoSearch !== false };
    if (!local.textInFlight) pumpText();
  }

  async function pumpText() {
    local.textInFlight = true;
    try {
      while (local.textPending !== null) {
        const { text, autoSearch } = local.textPending;
        local.textPending = null;
        if (autoSearch && searchable(text)) startedSearch("search", trim(text));
        const response = await command("search/text", { text, autoSearch });
        if (response && response.ok && local.textPending === null && el.searchText.value === text) {
          local.boxDirty = false;
          saveTyped(null);
        }
        if (!response) break; // unreachable: the box stays dirty and is sent again on reconnection
      }
    } finally {
      local.textInFlight = false;
    }
  }

  function saveTyped(text) {
    try {
      if (text === null) sessionStorage.removeItem(TYPED_KEY);
      else sessionStorage.setItem(TYPED_KEY, text);
    } catch (error) {
      // storage disabled: the text stays in the box
    }
  }

  /** Notes what this page asked the search to do, for the status line and where an error shows. */
  function startedSearch(kind, query) {
    local.searchKind = kind;
    if (kind === "search") {
      local.refused.search = null;
      local.searchQuery = query;
      local.cancelledQuery = null;
    }
  }

  function executeSearch(text) {
    const query = trim(text);
    if (!searchable(query)) return;
    if (local.offline) {
      local.pendingExecute = text;
      scheduleRender();
      return;
    }
    startedSearch("search", query);
    local.boxDirty = false;
    saveTyped(null);
    command("search/execute", { text }).then((response) => {
      local.refusedQuery = query;
      noteRefusal("search", response);
      if (response === null && local.offline && local.pendingExecute === null) {
        local.pendingExecute = text; // the server went away meanwhile: run it on reconnection
        scheduleRender();
      }
    });
  }

  /**
   * Once the snapshots of a (re)opened stream are there: the box, the URL and the server agree again. Text
   * typed while the server was away is sent (and searched); a query or photo in the URL that the session does
   * not have (a new session after a restart, or a shared link) is asked for; a Go pressed offline runs.
   */
  function replay() {
    const s = state.search;
    const p = state.photo;
    local.replayPending = false;
    const shown = s.results.value ? s.results.value.searchString : null;
    let reloaded = false;
    if (local.pendingExecute !== null) {
      const text = local.pendingExecute;
      local.pendingExecute = null;
      executeSearch(text);
      reloaded = true;
    } else if (local.boxDirty) {
      const text = el.searchText.value;
      if (searchable(text) && trim(text) !== shown) { executeSearch(text); reloaded = true; }
      else sendText(text, false);
    } else if (searchable(local.urlQuery) && local.urlQuery !== shown && !s.isSearching) {
      el.searchText.value = local.urlQuery;
      executeSearch(local.urlQuery);
      reloaded = true;
    }
    const wanted = local.photoShown;
    if (wanted !== null && p.photoId !== wanted) {
      openPhoto(wanted, local.photoOpener, false);
      reloaded = true;
    } else if (wanted === null && p.photoId !== null && !local.photoClosing) {
      command("photo/close");
    }
    if (local.screen === "products" && local.newSession) reloaded = true;
    if (local.announceReconnect || local.newSession) {
      const text = local.newSession
        ? "Reconnected. The server had restarted, so your " + (reloaded ? "results were reloaded." : "session was renewed.")
        : "Reconnected.";
      if (local.announceReconnect || reloaded) showNotice("reconnected", text);
      else el.notice.hidden = true;
    }
    local.announceReconnect = false;
    local.newSession = false;
  }

  function scheduleVisible() {
    clearTimeout(local.visibleTimer);
    local.visibleTimer = setTimeout(sendVisible, 200);
  }

  function sendVisible() {
    const ids = Array.from(local.visiblePhotos).slice(0, 500);
    const key = pendingVisibleKey();
    local.sentVisibleKey = key;
    command("search/visible", { photoIds: ids }).then((response) => {
      if (!response && local.sentVisibleKey === key) local.sentVisibleKey = ""; // unreachable: ask again later
    });
  }

  /** The visible photos whose counts are still unknown, as a comparable key. */
  function pendingVisibleKey() {
    const value = state.search && state.search.results.value;
    if (!value) return "";
    const byId = new Map(value.photos.map((p) => [p.id, p]));
    return Array.from(local.visiblePhotos)
      .filter((id) => { const p = byId.get(id); return p && (p.favorites === null || p.comments === null); })
      .sort()
      .join(",");
  }

  const photoObserver = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      const id = entry.target.dataset.photoId;
      if (entry.isIntersecting) local.visiblePhotos.add(id);
      else local.visiblePhotos.delete(id);
    }
    scheduleVisible();
  }, { rootMargin: "50px 0px" });

  const sentinelObserver = new IntersectionObserver(() => maybeLoadMore(), { rootMargin: "300px 0px" });
  sentinelObserver.observe(el.photosSentinel);
  sentinelObserver.observe(el.productsSentinel);

  /** Whether a list's end is on (or near) the screen of the shown panel. */
  function nearEnd(sentinel, panel) {
    if (panel.hidden) return false;
    return sentinel.getBoundingClientRect().top < window.innerHeight + 300;
  }

  /**
   * Infinite scroll: asks for the next page when the end of the list is in view and the state allows it,
   * at most once per state version (a refused or cancelled request is retried after the next change), and
   * not automatically after a failure (the error at the end of the list offers to try again).
   */
  function maybeLoadMore() {
    const s = state.search;
    if (s && s.canLoadMore && s.results.status === "loaded" && !s.lastError && !local.offline && !local.refused.more
        && nearEnd(el.photosSentinel, el.panels.search) && local.photosLoadKey !== s.version
        && s.version >= local.photosLoadAfter && !photoVisible()) {
      local.photosLoadKey = s.version;
      loadMorePhotos();
    }
    const p = state.products;
    if (p && p.hasMore && p.page > 0 && !p.isRefreshing && !p.isLoadingMore && !p.lastError && !local.offline
        && !local.refused.productsMore
        && nearEnd(el.productsSentinel, el.panels.products) && local.productsLoadKey !== p.version
        && p.version >= local.productsLoadAfter) {
      local.productsLoadKey = p.version;
      loadMoreProducts();
    }
  }

  function loadMorePhotos() {
    local.photosLoadAfter = Infinity;
    startedSearch("more", null);
    const generation = local.sessionGeneration;
    loadMore("search/load-more", "more").then((after) => {
      if (generation === local.sessionGeneration) local.photosLoadAfter = after;
    });
  }

  function loadMoreProducts() {
    local.productsLoadAfter = Infinity;
    local.productsKind = "more";
    const generation = local.sessionGeneration;
    loadMore("products/load-more", "productsMore").then((after) => {
      if (generation === local.sessionGeneration) local.productsLoadAfter = after;
    });
  }

  function refreshProducts() {
    local.productsKind = "refresh";
    local.refused.products = null;
    command("products/refresh").then((response) => noteRefusal("products", response));
  }

  /**
   * A command the server refused for a reason the user should hear (`429 rate_limited`, `503 overloaded`, …)
   * shows as an error next to what it was for, until that is asked for again. A `409` is no such reason: it
   * answers a command sent on a state the server has moved past, and the next change brings a new chance.
   */
  async function noteRefusal(slot, response) {
    const refused = response && !response.ok && response.status !== 409 && response.status !== 404;
    local.refused[slot] = refused ? await commandError(response) : null;
    scheduleRender();
  }

  /** Sends a load-more; resolves to the version its `202` names (0 for any other answer or a failure). */
  async function loadMore(path, slot) {
    local.refused[slot] = null;
    const response = await command(path);
    if (response && response.status !== 202) noteRefusal(slot, response);
    if (!response || response.status !== 202) return 0;
    try {
      const body = await response.json();
      return typeof body.version === "number" ? body.version : 0;
    } catch (error) {
      return 0;
    }
  }

  // ---------------------------------------------------------------- Rendering (a function of the state)

  let renderQueued = false;

  function scheduleRender() {
    if (renderQueued) return;
    renderQueued = true;
    const run = () => { renderQueued = false; render(); };
    if (document.hidden) setTimeout(run, 0);
    else requestAnimationFrame(run);
  }

  function render() {
    if (local.replayPending && !local.offline && state.search && state.products && state.photo && !recovering
        && source && source.readyState === EventSource.OPEN) {
      replay();
    }
    renderSearch(state.search);
    renderProducts(state.products);
    renderPhoto(state.photo);
    renderScreen();
    renderTitle();
    writeURL(false);
    maybeLoadMore();
    const pending = pendingVisibleKey();
    if (pending === "") local.sentVisibleKey = "";
    else if (pending !== local.sentVisibleKey) scheduleVisible();
    if (local.screen === "products") maybeAutoLoadProducts();
  }

  function renderTitle() {
    let title;
    if (photoVisible()) {
      title = trim(el.photoTitle.textContent) || "Photo";
    } else if (local.screen === "products") {
      title = "Products";
    } else {
      title = local.urlQuery ? quoted(local.urlQuery) + " · Flickr search" : "Flickr search";
    }
    title += " · vmhost";
    if (document.title !== title) document.title = title;
  }

  /**
   * An upstream Error object in words a person uses. `service` names who failed ("Flickr", "The product
   * service"); the technical message stays available as the text's tooltip.
   */
  function humanError(error, service) {
    const status = typeof error.status === "number" ? error.status : null;
    switch (error.kind) {
      case "network":
        return service + " can’t be reached right now.";
      case "upstream":
        if (status === 429 && /budget/.test(error.message || "")) {
          return "That was a lot of searching in a short time. Wait a moment, then search again.";
        }
        if (status === 429) return service + " is getting too many requests. Wait a minute, then try again.";
        if (status !== null && status >= 500) return service + " isn’t answering right now.";
        return service + " turned the request down.";
      case "business":
        if (service === "Flickr" && error.code === 1) return "This photo isn’t on Flickr any more.";
        return error.message ? service + " said: " + quoted(trim(error.message).replace(/\.$/, "")) + "."
          : service + " couldn’t do that.";
      case "decoding":
        return service + " sent an answer that couldn’t be read.";
      case "request":
        if (status === null) return "The server can’t be reached. Check your connection.";
        if (status === 429) return "Too many requests at once. Wait a moment, then try again.";
        if (status === 503) return "The server is busy. Try again in a moment.";
        return "The server refused that (" + (error.message || "HTTP " + status) + ").";
      default:
        return "Something went wrong.";
    }
  }

  /** Shows `error` (or hides the box): a sentence, the human reason and a Try again button. */
  function renderBanner(node, error, lead, service, retry) {
    node.hidden = !error;
    node.retry = retry;
    if (!error) {
      // NB: the signature goes too, so that the same error coming again is drawn again (it was an empty box).
      if (node.firstChild) node.replaceChildren();
      delete node.dataset.signature;
      return;
    }
    const signature = lead + "|" + JSON.stringify(error);
    if (node.dataset.signature === signature && node.firstChild) return;
    node.dataset.signature = signature;
    const reason = make("span", { "data-testid": "error-message", text: humanError(error, service) });
    if (error.message) reason.title = error.message;
    const text = make("div", {}, lead ? [make("strong", { text: lead + " " }), reason] : [reason]);
    const button = make("button", { type: "button", text: "Try again", "data-testid": "error-retry" });
    button.addEventListener("click", () => { if (node.retry) node.retry(); });
    node.replaceChildren(text, button);
  }

  function renderSearch(s) {
    if (!s) {
      el.searchGo.disabled = !searchable(el.searchText.value);
      el.searchCancel.hidden = true;
      el.searchSpinner.hidden = false;
      el.photosSkeleton.hidden = !local.urlQuery;
      fillSkeleton(el.photosSkeleton, 8, createPhotoSkeleton);
      setText(el.searchStatus, local.urlQuery ? "Loading photos for " + quoted(local.urlQuery) + "…"
        : "Connecting to the server…");
      return;
    }
    setText(el.searchTitle, s.title);
    if (!local.boxDirty && document.activeElement !== el.searchText && el.searchText.value !== s.searchText) {
      el.searchText.value = s.searchText;
    }
    const results = s.results;
    const value = results.value;

    // What is loading or failed, as this page asked for it (or guessed from the state after a reload).
    if (s.isSearching && !local.wasSearching && local.searchKind === null) {
      const more = value && value.searchString === trim(s.searchText) && s.canSearch && local.searchQuery === null;
      startedSearch(more ? "more" : "search", trim(s.searchText));
    }
    if (s.isSearching && local.searchKind === "search" && s.canSearch && local.searchQuery !== trim(s.searchText)
        && !local.textInFlight) {
      local.searchQuery = trim(s.searchText); // typed on while it loads: the debounced search takes over
    }
    if (!s.isSearching && local.wasSearching) {
      if (results.status === "failed") {
        local.failedQuery = local.searchKind === "more" ? null : local.searchQuery;
      } else {
        local.failedQuery = null;
        local.searchKind = null;
      }
    }
    local.wasSearching = s.isSearching;
    const newSearch = s.isSearching && local.searchKind !== "more";
    let failedKind = null;
    if (results.status === "failed") {
      // After a reload this page does not know what failed: a failure on the results of the text is a page.
      const page = local.searchKind === "more" || (local.searchKind === null && local.failedQuery === null
        && value && value.searchString === trim(s.searchText));
      failedKind = page ? "more" : "search";
    }
    const query = newSearch ? local.searchQuery || trim(s.searchText) : null;
    if (!s.isSearching) {
      local.urlQuery = failedKind === "search" && local.failedQuery ? local.failedQuery
        : value ? value.searchString : local.urlQuery;
    } else if (query) {
      local.urlQuery = query;
    }

    el.searchGo.disabled = local.boxDirty ? !searchable(el.searchText.value) : !s.canSearch;
    el.searchCancel.hidden = !s.isSearching;
    el.searchSpinner.hidden = !s.isSearching;
    setAttr(el.photos, "aria-busy", s.isSearching);
    const stale = Boolean(value) && (newSearch || failedKind === "search");
    el.photos.classList.toggle("stale", stale);
    el.photosSkeleton.hidden = !newSearch;
    if (newSearch) {
      // One row of placeholders over earlier results (as many as the grid has columns), two rows on an empty page.
      const columns = getComputedStyle(el.photosSkeleton).gridTemplateColumns.split(" ").length || 4;
      fillSkeleton(el.photosSkeleton, value ? columns : 2 * columns, createPhotoSkeleton);
    }

    // NB: a lastError without failed results is a search that did not run (the automatic search out of budget).
    const searchError = local.refused.search || (s.isSearching ? null : failedKind === "search"
      ? results.error || s.lastError : failedKind === null ? s.lastError : null);
    const moreError = local.refused.more || (!s.isSearching && failedKind === "more" ? results.error || s.lastError
      : null);
    const failedText = local.refused.search ? local.refusedQuery : local.failedQuery || trim(s.searchText);
    const didNotRun = Boolean(local.refused.search) || failedKind === null;
    renderBanner(el.searchError, searchError, "The search for " + quoted(failedText)
      + (didNotRun ? " didn’t run." : " failed."), "Flickr", () => {
      executeSearch(failedText);
    });
    renderBanner(el.photosError, moreError, "More photos couldn’t be loaded.", "Flickr", () => loadMorePhotos());

    let status;
    const typedOffline = local.offline && local.boxDirty && searchable(el.searchText.value)
      && trim(el.searchText.value) !== (value ? value.searchString : null) ? trim(el.searchText.value) : null;
    if (local.pendingExecute !== null || typedOffline !== null) {
      status = "Offline: the search for " + quoted(local.pendingExecute !== null ? trim(local.pendingExecute)
        : typedOffline) + " runs when the server is back.";
    } else if (s.isSearching) {
      status = newSearch ? "Loading photos for " + quoted(query) + "…"
        : "Loading more photos for " + quoted(value ? value.searchString : trim(s.searchText)) + "…";
    } else if (failedKind === "search") {
      status = "The search for " + quoted(failedText) + " failed."
        + (value && value.searchString !== failedText ? " Showing earlier results for " + quoted(value.searchString)
          + "." : "");
    } else if (value && value.totalResults === 0 && value.photos.length === 0) {
      status = "No results for " + quoted(value.searchString) + ".";
    } else if (value) {
      status = fmt(value.totalResults) + " results for " + quoted(value.searchString) + " · showing "
        + fmt(value.photos.length);
      if (local.cancelledQuery) status = "Search for " + quoted(local.cancelledQuery) + " cancelled. " + status;
    } else if (local.cancelledQuery) {
      status = "Search for " + quoted(local.cancelledQuery) + " cancelled.";
    } else {
      const canSearch = local.boxDirty ? searchable(el.searchText.value) : s.canSearch;
      status = canSearch ? "Press Go to search." : "Type more than 3 characters to search.";
    }
    setText(el.searchStatus, status);

    const empty = !s.isSearching && failedKind === null && value && value.photos.length === 0;
    el.photosEmpty.hidden = !empty;
    if (empty) setText(el.photosEmptyTitle, "No photos for " + quoted(value.searchString));

    const recent = s.recentSearches.concat(
      local.carriedRecent.filter((r) => !s.recentSearches.some((x) => x.searchString === r.searchString))
    ).slice(0, 10);
    el.recent.hidden = recent.length === 0;
    const current = value && !newSearch ? value.searchString : query;
    reconcile(el.recentList, recent, (r) => r.searchString, createRecent, (node, r) => updateRecent(node, r, current));

    reconcile(el.photos, value ? value.photos : [], (p) => p.id, createPhoto, updatePhoto, (node) => {
      photoObserver.unobserve(node);
      if (local.visiblePhotos.delete(node.dataset.photoId)) scheduleVisible();
    });
    el.photosMore.hidden = !s.canLoadMore || moreError !== null || s.isSearching;
    el.photosEnd.hidden = !(value && !s.isSearching && value.photos.length > 0 && value.page >= value.pages);
  }

  function fillSkeleton(list, count, create) {
    while (list.children.length < count) list.append(create());
    while (list.children.length > count) list.lastElementChild.remove();
  }

  const createPhotoSkeleton = () => make("li", { class: "photo skeleton", "data-testid": "photo-skeleton" }, [
    make("div", { class: "frame" }), make("div", { class: "meta" }, [make("span", { class: "bar" }),
      make("span", { class: "bar short" })]),
  ]);

  const createProductSkeleton = () => make("li", { class: "product skeleton", "data-testid": "product-skeleton" }, [
    make("div", { class: "body" }, [make("span", { class: "bar" }), make("span", { class: "bar short" })]),
  ]);

  function createRecent() {
    const button = make("button", { type: "button", "data-testid": "recent-search" });
    button.addEventListener("click", () => {
      el.searchText.value = button.dataset.search;
      executeSearch(button.dataset.search);
    });
    return make("li", {}, [button]);
  }

  function updateRecent(node, r, current) {
    const button = node.firstElementChild;
    setAttr(button, "aria-current", r.searchString === current ? "true" : null);
    const signature = r.searchString + "|" + r.totalResults + "|" + r.thumbnailUrl;
    if (button.dataset.signature === signature) return;
    button.dataset.signature = signature;
    button.dataset.search = r.searchString;
    button.setAttribute("aria-label", "Search again for " + r.searchString + ", " + fmt(r.totalResults) + " results");
    const thumb = r.thumbnailUrl
      ? make("img", { src: r.thumbnailUrl, alt: "", width: "28", height: "28", loading: "lazy" })
      : make("span", { class: "thumb-fallback", "aria-hidden": "true" });
    if (thumb.tagName === "IMG") thumb.addEventListener("error", () => thumb.replaceWith(fallbackThumb()));
    button.replaceChildren(thumb, make("span", { text: r.searchString }),
      make("span", { class: "count", text: fmt(r.totalResults) }));
  }

  const fallbackThumb = () => make("span", { class: "thumb-fallback", "aria-hidden": "true" });

  function createPhoto(p) {
    const img = make("img", { width: "240", height: "180", loading: "lazy", decoding: "async" });
    img.addEventListener("error", () => { img.hidden = true; });
    const open = make("button", { type: "button", class: "frame", "data-testid": "photo-open" }, [img]);
    open.addEventListener("click", () => openPhoto(p.id, open, true));
    const node = make("li", { class: "photo", "data-testid": "photo" }, [
      open,
      make("div", { class: "meta" }, [
        make("p", { class: "title", "data-testid": "photo-title" }),
        make("p", { class: "counts" }, [
          make("span", { class: "count", "data-testid": "photo-favorites" }, [icon("heart"), ""]),
          make("span", { class: "count", "data-testid": "photo-comments" }, [icon("comment"), ""]),
        ]),
      ]),
    ]);
    node.dataset.photoId = p.id;
    photoObserver.observe(node);
    return node;
  }

  function updatePhoto(node, p) {
    const title = p.title && p.title.trim() ? p.title : "Untitled";
    const img = node.querySelector("img");
    if (img.getAttribute("src") !== p.url) { img.hidden = false; img.setAttribute("src", p.url); }
    setAttr(img, "alt", title);
    setAttr(node.querySelector(".frame"), "aria-label", "Open " + title);
    const titleNode = node.querySelector(".title");
    setText(titleNode, title);
    setAttr(titleNode, "title", title);
    renderCount(node.querySelector('[data-testid="photo-favorites"]'), p.favorites, "favorite", "favorites");
    renderCount(node.querySelector('[data-testid="photo-comments"]'), p.comments, "comment", "comments");
  }

  function renderCount(node, count, one, many) {
    const loaded = typeof count === "number";
    setAttr(node, "data-loaded", loaded);
    setText(node.lastChild, loaded ? fmt(count) : "…");
    setAttr(node, "aria-label", loaded ? fmt(count) + " " + (count === 1 ? one : many) : many + " loading");
  }

  // Icons are inline SVG, so they never depend on an emoji font.
  const ICONS = {
    heart: "M12 21s-7.5-4.6-9.6-9.3C.9 8.3 3 4.5 6.6 4.5c2 0 3.5 1.1 4.4 2.6.9-1.5 2.4-2.6 4.4-2.6 3.6 0 5.7 "
      + "3.8 4.2 7.2C19.5 16.4 12 21 12 21z",
    comment: "M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z",
  };

  function icon(name) {
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("viewBox", "0 0 24 24");
    svg.setAttribute("aria-hidden", "true");
    svg.setAttribute("class", "icon icon-" + name);
    const path = document.createElementNS("http://www.w3.org/2000/svg", "path");
    path.setAttribute("d", ICONS[name]);
    svg.append(path);
    return svg;
  }

  function renderProducts(p) {
    if (!p) {
      el.productsRefresh.disabled = true;
      el.productsCancel.hidden = true;
      el.productsSkeleton.hidden = false;
      fillSkeleton(el.productsSkeleton, 6, createProductSkeleton);
      setText(el.productsStatus, "Connecting to the server…");
      return;
    }
    const busy = p.isRefreshing || p.isLoadingMore;
    if (p.isRefreshing) local.productsKind = "refresh";
    else if (p.isLoadingMore) local.productsKind = "more";
    el.productsRefresh.disabled = false;
    setText(el.productsRefresh, p.isRefreshing ? "Refreshing…" : "Refresh");
    el.productsCancel.hidden = !busy;
    el.productsSpinner.hidden = !busy;
    setAttr(el.products, "aria-busy", busy);
    setAttr(el.products, "data-refreshing", p.isRefreshing);
    setAttr(el.products, "data-loading-more", p.isLoadingMore);
    const firstLoad = p.items.length === 0 && (p.isRefreshing || (p.page === 0 && !p.lastError));
    el.productsSkeleton.hidden = !firstLoad;
    if (firstLoad) fillSkeleton(el.productsSkeleton, 6, createProductSkeleton);
    el.products.classList.toggle("stale", p.isRefreshing && p.items.length > 0);
    const moreFailed = Boolean(local.refused.productsMore)
      || (p.lastError && !busy && local.productsKind === "more" && p.items.length > 0);
    renderBanner(el.productsError, local.refused.products || (p.lastError && !busy && !moreFailed ? p.lastError
      : null), "The products couldn’t be loaded.", "The product service", () => refreshProducts());
    renderBanner(el.productsMoreError, moreFailed ? local.refused.productsMore || p.lastError : null,
      "More products couldn’t be loaded.", "The product service", () => loadMoreProducts());

    let status;
    if (p.isRefreshing) status = "Refreshing…";
    else if (p.isLoadingMore) status = "Loading more products…";
    else if (p.page === 0 && p.items.length === 0) status = p.lastError ? "No products loaded."
      : "Pull down or press Refresh to load products.";
    else status = fmt(p.items.length) + " products" + (p.hasMore ? " · scroll for more" : "");
    setText(el.productsStatus, status);

    reconcile(el.products, p.items, (item) => item.id, createProduct, updateProduct);
    el.productsMore.hidden = !(p.hasMore && p.page > 0 && !busy && !moreFailed);
    el.productsEnd.hidden = !(p.page > 0 && !p.hasMore && p.items.length > 0);
  }

  function createProduct() {
    return make("li", { class: "product", "data-testid": "product" });
  }

  // DummyJSON's prices are US dollars (the server writes them "$12.34"); the envelope format's amounts name no
  // currency, so none is shown for them rather than a guess.
  const dollars = new Intl.NumberFormat(undefined, { style: "currency", currency: "USD" });

  function priceNode(price) {
    const match = /^\$([0-9][0-9,]*(?:\.[0-9]+)?)$/.exec(price || "");
    if (!match) return make("span", { class: "price", "data-testid": "product-price", text: price || "" });
    const amount = Number(match[1].replace(/,/g, ""));
    return make("span", {
      class: "price", "data-testid": "product-price", "data-currency": "USD",
      title: "US dollars", text: dollars.format(amount) + " USD",
    });
  }

  function updateProduct(node, item) {
    const signature = JSON.stringify(item);
    if (node.dataset.signature === signature) return;
    node.dataset.signature = signature;
    const parts = [];
    if (item.imageUrl) {
      const img = make("img", { src: item.imageUrl, alt: item.title, width: "64", height: "64", loading: "lazy" });
      img.addEventListener("error", () => { img.hidden = true; });
      parts.push(img);
    }
    parts.push(make("div", { class: "body" }, [
      make("p", { class: "title", "data-testid": "product-title", text: item.title }),
      make("p", { class: "subtitle", text: item.subtitle || "" }),
      make("p", { class: "detail", text: item.detail || "" }),
    ]));
    parts.push(make("div", { class: "side" }, [
      priceNode(item.price),
      item.badge ? make("span", { class: "badge" + (/sold out|out of stock/i.test(item.badge) ? " muted" : ""),
        "data-testid": "product-badge", text: item.badge }) : "",
    ]));
    node.replaceChildren(...parts);
  }

  function maybeAutoLoadProducts() {
    const p = state.products;
    if (!p || local.productsAutoLoaded || local.offline) return;
    if (p.page === 0 && p.items.length === 0 && !p.isRefreshing && !p.isLoadingMore && !p.lastError) {
      local.productsAutoLoaded = true;
      refreshProducts();
    }
  }

  // ---------------------------------------------------------------- Photo detail (a dialog over the search)

  /** Opens a photo; `push` adds a history entry (a click), so that Back closes it. */
  async function openPhoto(id, opener, push) {
    const wasShown = local.photoShown;
    local.photoShown = id;
    local.photoClosing = false;
    if (opener) local.photoOpener = opener;
    local.photoOpenError = null;
    if (push && wasShown !== id) writeURL(true);
    renderPhoto(state.photo);
    renderTitle();
    if (!el.photoView.contains(document.activeElement)) el.photoClose.focus();
    if (local.offline) return; // opened on reconnection (replay)
    const response = await command("photo/open", { photoId: id });
    if (local.photoShown !== id) return;
    local.photoOpenError = await commandError(response);
    scheduleRender();
  }

  /** A command's failure as an Error object for the banner; null when it was accepted. */
  async function commandError(response) {
    if (!response) return { kind: "request", message: "the server could not be reached", status: null, code: null };
    if (response.ok) return null;
    let message = "HTTP " + response.status;
    try {
      const body = await response.json();
      if (body && body.error && body.error.message) message = body.error.message;
    } catch (error) {
      // not a JSON error answer: keep the status
    }
    return { kind: "request", message, status: response.status, code: null };
  }

  /** Closes the photo; `fromHistory` when Back already left its history entry. */
  async function closePhoto(fromHistory) {
    if (!photoVisible()) return;
    const id = shownPhotoId();
    local.photoShown = null;
    local.photoClosing = true;
    local.photoOpenError = null;
    const opener = local.photoOpener;
    local.photoOpener = null;
    if (!fromHistory) {
      if (history.state && history.state.photo === id) history.back(); // the entry the open pushed
      else writeURL(false);
    }
    renderPhoto(state.photo);
    renderTitle();
    const card = opener && opener.isConnected ? opener
      : document.querySelector('[data-testid="photo"][data-photo-id="' + CSS.escape(id) + '"] .frame');
    if (card) card.focus();
    if (local.offline) { local.photoClosing = false; scheduleRender(); return null; }
    const response = await command("photo/close");
    // Until the server's state says the photo is closed (the stream may deliver it after this answer), the
    // view stays closed; if the close failed, the server's state shows again.
    if (local.photoShown === null && (!response || !response.ok)) local.photoClosing = false;
    scheduleRender();
    return response;
  }

  /**
   * The id of the photo the view shows: the one the URL names (a click, Back or Forward, a link), set at once,
   * before the server's state arrives; the server is brought to it (`replay`), not the other way round.
   */
  function shownPhotoId() {
    return local.photoShown;
  }

  const photoVisible = () => shownPhotoId() !== null;

  /** The search result with this id, for a title and thumbnail before the detail has loaded. */
  function searchPhoto(id) {
    const value = state.search && state.search.results.value;
    return value ? value.photos.find((p) => p.id === id) || null : null;
  }

  // One date format on the page, the browser's locale's: a photo's date (the camera's local time, no zone) and
  // a comment's (UTC, shown in the reader's time zone) alike.
  const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

  function formatDate(text) {
    if (!text) return "–";
    const date = new Date(text);
    if (Number.isNaN(date.getTime())) return text;
    return dateFormat.format(date);
  }

  function renderPhoto(p) {
    if (local.photoClosing && (!p || p.photoId === null)) local.photoClosing = false;
    const id = shownPhotoId();
    const visible = id !== null;
    el.photoView.hidden = !visible;
    el.main.inert = visible;
    el.topbar.inert = visible;
    el.skipLink.inert = visible;
    document.body.classList.toggle("has-dialog", visible);
    if (!visible) return;
    setAttr(el.photoView, "data-photo-id", id);

    // The server's state for this photo, or nothing yet (the open is on its way).
    const current = p && p.photoId === id ? p : null;
    const detail = current ? current.detail : null;
    const value = detail && detail.value && detail.value.id === id ? detail.value : null;
    const fallback = searchPhoto(id);
    const title = value ? value.title : fallback ? fallback.title : "";
    setText(el.photoTitle, title && title.trim() ? title : value || fallback ? "Untitled" : "Photo");

    const failedToOpen = local.photoOpenError !== null && !current;
    const loading = !failedToOpen && (!current || detail.status === "loading" || current.comments.status === "loading");
    el.photoSpinner.hidden = !loading;
    setAttr(el.photoView, "aria-busy", loading);
    setAttr(el.photoView, "data-detail-status", detail ? detail.status : "loading");
    let status;
    if (failedToOpen) status = "The photo could not be opened.";
    else if (local.offline && !value) status = "Waiting for the server…";
    else if (!detail || detail.status === "loading" || detail.status === "idle") status = "Loading the photo…";
    else if (detail.status === "failed") status = "The photo could not be loaded.";
    else status = "";
    setText(el.photoStatus, status);
    const error = failedToOpen ? local.photoOpenError
      : current && !loading ? (detail.status === "failed" ? detail.error : null) || (current.comments.status
        === "failed" ? current.comments.error : null) || (detail.status === "failed" ? current.lastError : null)
        : null;
    renderBanner(el.photoError, error, detail && detail.status === "failed" || failedToOpen
      ? "The photo couldn’t be loaded." : "The comments couldn’t be loaded.", "Flickr", () => {
      const shown = shownPhotoId();
      if (shown !== null) openPhoto(shown, null, false);
    });

    const imageUrl = value ? value.imageUrl : fallback ? fallback.url : null;
    if (imageUrl && el.photoImage.getAttribute("src") !== imageUrl) {
      el.photoImage.hidden = false;
      el.photoImage.setAttribute("src", imageUrl);
    } else if (!imageUrl) {
      el.photoImage.hidden = true;
      el.photoImage.removeAttribute("src");
    }
    setAttr(el.photoImage, "alt", title || "");

    const pending = failedToOpen ? "–" : "…";
    setText(el.photoOwner, value ? value.owner || "–" : pending);
    setText(el.photoTaken, value ? formatDate(value.takenAt) : pending);
    setText(el.photoViews, value ? fmt(value.views) : pending);
    setText(el.photoDescription, value ? value.description : "");
    el.photoDescription.hidden = !(value && value.description);
    reconcile(el.photoTags, value ? value.tags : [], (tag) => tag, createTag, updateTag);
    el.photoTags.hidden = !(value && value.tags.length);
    el.photoPage.hidden = !value;
    if (value) setAttr(el.photoPage, "href", value.pageUrl);

    const comments = current ? current.comments : null;
    const list = comments && comments.value ? comments.value : [];
    let commentsStatus;
    if (failedToOpen) commentsStatus = "";
    else if (!comments || comments.status === "loading" || comments.status === "idle") commentsStatus = "Loading comments…";
    else if (comments.status === "failed") commentsStatus = "The comments could not be loaded.";
    else if (list.length === 0) commentsStatus = "No comments yet.";
    else commentsStatus = list.length === 1 ? "1 comment" : fmt(list.length) + " comments";
    setText(el.photoCommentsStatus, commentsStatus);
    setAttr(el.photoComments, "data-status", comments ? comments.status : "loading");
    reconcile(el.photoComments, list, (c) => c.id, createComment, updateComment);
  }

  /** A tag searches for itself (closing the photo) when it is long enough to search for. */
  function createTag(tag) {
    if (!searchable(tag)) return make("li", { class: "tag", "data-testid": "photo-tag" });
    const button = make("button", { type: "button", class: "tag-button", "data-testid": "photo-tag-search" });
    button.addEventListener("click", () => {
      const text = button.dataset.tag;
      closePhoto(false).then(() => {
        el.searchText.value = text;
        executeSearch(text);
      });
    });
    return make("li", { class: "tag", "data-testid": "photo-tag" }, [button]);
  }

  function updateTag(node, tag) {
    const button = node.firstElementChild;
    if (!button) { setText(node, tag); return; }
    button.dataset.tag = tag;
    setText(button, tag);
    setAttr(button, "aria-label", "Search for " + tag);
  }

  function createComment() {
    return make("li", { class: "comment", "data-testid": "photo-comment" }, [
      make("p", { class: "comment-head" }, [make("strong"), " · ", make("time")]),
      make("p", { class: "comment-text" }),
    ]);
  }

  function updateComment(node, c) {
    setText(node.querySelector("strong"), c.author || "Someone");
    const time = node.querySelector("time");
    setAttr(time, "datetime", c.createdAt);
    setText(time, formatDate(c.createdAt));
    setText(node.querySelector(".comment-text"), c.text);
  }

  /** The elements Tab can reach in the photo dialog, in order. */
  function dialogFocusables() {
    return Array.from(el.photoView.querySelectorAll("button, a[href], [tabindex]"))
      .filter((node) => !node.hidden && !node.closest("[hidden]") && !node.disabled && node.tabIndex >= 0
        && node.getClientRects().length > 0);
  }

  el.photoImage.addEventListener("error", () => { el.photoImage.hidden = true; });
  el.photoClose.addEventListener("click", () => closePhoto(false));
  document.addEventListener("keydown", (event) => {
    if (!photoVisible()) return;
    if (event.key === "Escape") {
      event.preventDefault();
      closePhoto(false);
    } else if (event.key === "Tab") {
      // Focus stays in the dialog: from its last element Tab goes to its first, and Shift+Tab back.
      const items = dialogFocusables();
      if (items.length === 0) return;
      const first = items[0];
      const last = items[items.length - 1];
      const inside = el.photoView.contains(document.activeElement);
      if (event.shiftKey && (!inside || document.activeElement === first)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (!inside || document.activeElement === last)) {
        event.preventDefault();
        first.focus();
      }
    }
  });
  el.photoView.addEventListener("click", (event) => {
    if (event.target === el.photoView) closePhoto(false); // a click on the backdrop
  });

  // Back and Forward: the URL says whether a photo is open (and which screen shows).
  window.addEventListener("popstate", () => {
    const url = readURL();
    if (url.photo === null && photoVisible()) closePhoto(true);
    else if (url.photo !== null && url.photo !== local.photoShown) openPhoto(url.photo, null, false);
    if (url.screen !== local.screen) { local.screen = url.screen; renderScreen(); }
    scheduleRender();
  });

  // ---------------------------------------------------------------- Screens (tabs)

  function renderScreen() {
    for (const tab of el.tabs) {
      const selected = tab.dataset.screen === local.screen;
      setAttr(tab, "aria-selected", selected);
      setAttr(tab, "tabindex", selected ? null : "-1");
    }
    el.panels.search.hidden = local.screen !== "search";
    el.panels.products.hidden = local.screen !== "products";
  }

  function showScreen(screen, focusTab) {
    if (!(screen in el.panels)) screen = "search";
    if (screen !== local.screen) window.scrollTo(0, 0); // a screen starts at its top
    local.screen = screen;
    writeURL(false);
    renderScreen();
    renderTitle();
    if (focusTab) el.tabs.find((t) => t.dataset.screen === screen).focus();
    scheduleRender();
  }

  el.tabs.forEach((tab, index) => {
    tab.addEventListener("click", () => showScreen(tab.dataset.screen, false));
    tab.addEventListener("keydown", (event) => {
      let next = null;
      if (event.key === "ArrowRight") next = (index + 1) % el.tabs.length;
      else if (event.key === "ArrowLeft") next = (index - 1 + el.tabs.length) % el.tabs.length;
      else if (event.key === "Home") next = 0;
      else if (event.key === "End") next = el.tabs.length - 1;
      if (next === null) return;
      event.preventDefault();
      showScreen(el.tabs[next].dataset.screen, true);
    });
  });

  // ---------------------------------------------------------------- Inputs

  el.searchText.addEventListener("input", () => {
    local.boxDirty = true;
    saveTyped(el.searchText.value);
    if (local.offline) { scheduleRender(); return; } // sent on reconnection
    sendText(el.searchText.value);
    scheduleRender();
  });
  el.searchForm.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!el.searchGo.disabled) executeSearch(el.searchText.value);
  });
  el.searchCancel.addEventListener("click", async () => {
    const cancelled = local.searchKind === "more" ? null : local.searchQuery;
    const response = await command("search/cancel");
    if (!response || !response.ok) return;
    local.cancelledQuery = cancelled;
    // The box goes back to the query whose results are shown, so that box, status and results agree.
    const s = state.search;
    const value = s && s.results.value;
    if (value && cancelled !== null && trim(el.searchText.value) !== value.searchString) {
      el.searchText.value = value.searchString;
      local.boxDirty = true;
      sendText(value.searchString, false);
    }
    scheduleRender();
  });
  el.photosMore.addEventListener("click", () => loadMorePhotos());
  el.productsRefresh.addEventListener("click", () => refreshProducts());
  el.productsCancel.addEventListener("click", () => command("products/cancel"));
  el.productsMore.addEventListener("click", () => loadMoreProducts());

  // Pull to refresh (touch devices): drag down from the top of the page.
  const pull = { startY: null, distance: 0 };
  const PULL_THRESHOLD = 64;
  el.panels.products.addEventListener("touchstart", (event) => {
    pull.startY = window.scrollY <= 0 && event.touches.length === 1 ? event.touches[0].clientY : null;
    pull.distance = 0;
  }, { passive: true });
  el.panels.products.addEventListener("touchmove", (event) => {
    if (pull.startY === null) return;
    pull.distance = Math.max(0, Math.min(96, (event.touches[0].clientY - pull.startY) * 0.5));
    el.pull.classList.add("dragging");
    el.pull.style.height = pull.distance + "px";
    const armed = pull.distance >= PULL_THRESHOLD;
    el.pull.classList.toggle("armed", armed);
    setText(el.pull.querySelector(".pull-label"), armed ? "Release to refresh" : "Pull to refresh");
  }, { passive: true });
  const endPull = () => {
    if (pull.startY === null) return;
    if (pull.distance >= PULL_THRESHOLD) refreshProducts();
    pull.startY = null;
    pull.distance = 0;
    el.pull.classList.remove("dragging", "armed");
    el.pull.style.height = "";
  };
  el.panels.products.addEventListener("touchend", endPull);
  el.panels.products.addEventListener("touchcancel", endPull);

  window.addEventListener("resize", () => maybeLoadMore());
  document.addEventListener("visibilitychange", () => { if (!document.hidden) scheduleRender(); });

  // ---------------------------------------------------------------- Start

  async function start() {
    try {
      const carried = JSON.parse(sessionStorage.getItem(RECENT_KEY) || "[]");
      if (Array.isArray(carried)) local.carriedRecent = carried.filter((r) => r && typeof r.searchString === "string");
    } catch (error) {
      // a damaged entry: nothing carried
    }
    const typed = sessionStorage.getItem(TYPED_KEY);
    if (typed !== null) {
      el.searchText.value = typed;
      local.boxDirty = true;
    } else if (local.urlQuery) {
      el.searchText.value = local.urlQuery;
    }
    if (local.photoShown !== null && history.state === null) history.replaceState({ photo: null }, "");
    renderScreen();
    renderPhoto(null);
    renderTitle();
    if (local.photoShown !== null) el.photoClose.focus();
    setConnection("connecting");
    if (sessionId) {
      document.documentElement.dataset.session = sessionId;
      openStream(); // an unknown id fails the stream, and streamFailed() creates a new session
    } else {
      await recover();
    }
  }

  window.vmhost = { applyPatch, state, PatchError, render: scheduleRender }; // for debugging and tests
  start();
})();
