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
    photosSentinel: $("photos-sentinel"),
    photosMore: $("photos-more"),
    photosEnd: $("photos-end"),
    pull: $("pull"),
    productsRefresh: $("products-refresh"),
    productsCancel: $("products-cancel"),
    productsSpinner: $("products-spinner"),
    productsStatus: $("products-status"),
    productsError: $("products-error"),
    products: $("products"),
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

  /** Keyed list reconciliation: reuses elements by key, keeps the order of `items`. */
  function reconcile(list, items, keyOf, create, update, removed) {
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
  }

  // ---------------------------------------------------------------- Session, commands, event stream

  const STORAGE_KEY = "vmhost.sessionId";
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

  /** Replaces a lost session (expired, or the server restarted) and reconnects. */
  function recover() {
    if (!recovering) {
      recovering = (async () => {
        try {
          await createSession();
          state.search = null;
          state.products = null;
          state.photo = null;
          local.photoShown = null;
          local.photoClosing = false;
          local.productsAutoLoaded = false;
          local.photosLoadKey = null;
          local.productsLoadKey = null;
          local.photosLoadAfter = 0;
          local.productsLoadAfter = 0;
          local.sessionGeneration += 1;
          local.sentVisibleKey = "";
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
      const response = await fetch(sessionPath() + "/" + path, init);
      if (response.status === 404 && (await errorCode(response)) === "session_not_found") recover();
      else if (!response.ok && response.status !== 409) console.warn("POST " + path + ": HTTP " + response.status);
      return response;
    } catch (error) {
      console.warn("POST " + path + " failed", error);
      return null;
    }
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
    const labels = { connecting: "Connecting…", live: "Live", reconnecting: "Reconnecting…" };
    setAttr(el.connection, "data-state", kind);
    setText(el.connection.querySelector(".connection-label"), labels[kind]);
    setAttr(el.connection, "title", "Connection: " + labels[kind]);
  }

  function openStream() {
    clearTimeout(reopenTimer);
    if (source) source.close();
    setConnection(everLive ? "reconnecting" : "connecting");
    const stream = new EventSource(sessionPath() + "/events");
    source = stream;
    stream.onopen = () => {
      if (stream !== source) return;
      everLive = true;
      backoff = 1000;
      setConnection("live");
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
    setConnection("reconnecting");
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

  const local = {
    screen: "search",
    textInFlight: false,
    textPending: null,
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
    // The photo the detail view shows: set at once on a click (before the server's state arrives), null
    // after close. `photoClosing` hides a photo the server still reports until its close is answered.
    photoShown: null,
    photoClosing: false,
    photoOpener: null,
    photoOpenError: null, // an error answer to photo/open (the server's state stays as it was)
  };

  /** Sends the search text; at most one request in flight, the latest text wins, order is kept. */
  function sendText(text) {
    local.textPending = text;
    if (!local.textInFlight) pumpText();
  }

  async function pumpText() {
    local.textInFlight = true;
    try {
      while (local.textPending !== null) {
        const text = local.textPending;
        local.textPending = null;
        await command("search/text", { text, autoSearch: true });
      }
    } finally {
      local.textInFlight = false;
    }
  }

  function scheduleVisible() {
    clearTimeout(local.visibleTimer);
    local.visibleTimer = setTimeout(sendVisible, 200);
  }

  function sendVisible() {
    const ids = Array.from(local.visiblePhotos).slice(0, 500);
    local.sentVisibleKey = pendingVisibleKey();
    command("search/visible", { photoIds: ids });
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
   * not automatically after a failure (the error banner offers to try again).
   */
  function maybeLoadMore() {
    const s = state.search;
    if (s && s.canLoadMore && s.results.status === "loaded" && !s.lastError
        && nearEnd(el.photosSentinel, el.panels.search) && local.photosLoadKey !== s.version
        && s.version >= local.photosLoadAfter) {
      local.photosLoadKey = s.version;
      local.photosLoadAfter = Infinity;
      const generation = local.sessionGeneration;
      loadMore("search/load-more").then((after) => {
        if (generation === local.sessionGeneration) local.photosLoadAfter = after;
      });
    }
    const p = state.products;
    if (p && p.hasMore && p.page > 0 && !p.isRefreshing && !p.isLoadingMore && !p.lastError
        && nearEnd(el.productsSentinel, el.panels.products) && local.productsLoadKey !== p.version
        && p.version >= local.productsLoadAfter) {
      local.productsLoadKey = p.version;
      local.productsLoadAfter = Infinity;
      const generation = local.sessionGeneration;
      loadMore("products/load-more").then((after) => {
        if (generation === local.sessionGeneration) local.productsLoadAfter = after;
      });
    }
  }

  /** Sends a load-more; resolves to the version its `202` names (0 for any other answer or a failure). */
  async function loadMore(path) {
    const response = await command(path);
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
    renderSearch(state.search);
    renderProducts(state.products);
    renderPhoto(state.photo);
    renderScreen();
    maybeLoadMore();
    const pending = pendingVisibleKey();
    if (pending === "") local.sentVisibleKey = "";
    else if (pending !== local.sentVisibleKey) scheduleVisible();
    if (local.screen === "products") maybeAutoLoadProducts();
  }

  function renderBanner(node, error, retryLabel, retry) {
    node.hidden = !error;
    if (!error) { node.replaceChildren(); return; }
    const kind = error.kind ? error.kind[0].toUpperCase() + error.kind.slice(1) : "Unknown";
    const message = error.message || "something went wrong";
    const signature = JSON.stringify(error);
    if (node.dataset.signature === signature) return;
    node.dataset.signature = signature;
    const details = [];
    const mentioned = (text) => message.includes(text);
    if (typeof error.status === "number" && !mentioned(String(error.status))) details.push("HTTP " + error.status);
    if (error.code !== null && error.code !== undefined && !mentioned(String(error.code))) {
      details.push("code " + error.code);
    }
    const text = make("div", {}, [
      make("strong", { text: kind + " error: " }),
      make("span", { "data-testid": "error-message", text: message }),
      details.length ? make("span", { class: "details", text: " (" + details.join(", ") + ")" }) : "",
    ]);
    const button = make("button", { type: "button", text: retryLabel });
    button.addEventListener("click", retry);
    node.replaceChildren(text, button);
  }

  function renderSearch(s) {
    if (!s) {
      el.searchGo.disabled = true;
      el.searchCancel.hidden = true;
      el.searchSpinner.hidden = false;
      setText(el.searchStatus, "Connecting to the server…");
      return;
    }
    setText(el.searchTitle, s.title);
    if (document.activeElement !== el.searchText && el.searchText.value !== s.searchText) {
      el.searchText.value = s.searchText;
    }
    el.searchGo.disabled = !s.canSearch;
    el.searchCancel.hidden = !s.isSearching;
    el.searchSpinner.hidden = !s.isSearching;
    setAttr(el.photos, "aria-busy", s.isSearching);
    renderBanner(el.searchError, s.lastError, "Try again", () => {
      if (s.canSearch) command("search/execute", { text: el.searchText.value });
    });

    const results = s.results;
    const value = results.value;
    let status;
    if (s.isSearching) {
      status = value && value.searchString ? "Loading photos for “" + value.searchString + "”…" : "Searching…";
    } else if (value) {
      status = fmt(value.totalResults) + " results for “" + value.searchString + "” · showing "
        + fmt(value.photos.length);
    } else if (results.status === "failed") {
      status = "The search failed.";
    } else {
      status = s.canSearch ? "Press Go to search." : "Type more than 3 characters to search.";
    }
    setText(el.searchStatus, status);

    el.recent.hidden = s.recentSearches.length === 0;
    reconcile(el.recentList, s.recentSearches, (r) => r.searchString, createRecent, updateRecent);

    reconcile(el.photos, value ? value.photos : [], (p) => p.id, createPhoto, updatePhoto, (node) => {
      photoObserver.unobserve(node);
      if (local.visiblePhotos.delete(node.dataset.photoId)) scheduleVisible();
    });
    el.photosMore.hidden = !s.canLoadMore;
    el.photosEnd.hidden = !(value && !s.isSearching && value.photos.length > 0 && value.page >= value.pages);
  }

  function createRecent() {
    const button = make("button", { type: "button", "data-testid": "recent-search" });
    button.addEventListener("click", () => {
      command("search/execute", { text: button.dataset.search });
    });
    return make("li", {}, [button]);
  }

  function updateRecent(node, r) {
    const button = node.firstElementChild;
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
    open.addEventListener("click", () => openPhoto(p.id, open));
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
      setText(el.productsStatus, "Connecting to the server…");
      return;
    }
    const busy = p.isRefreshing || p.isLoadingMore;
    el.productsRefresh.disabled = false;
    setText(el.productsRefresh, p.isRefreshing ? "Refreshing…" : "Refresh");
    el.productsCancel.hidden = !busy;
    el.productsSpinner.hidden = !busy;
    setAttr(el.products, "aria-busy", busy);
    setAttr(el.products, "data-refreshing", p.isRefreshing);
    setAttr(el.products, "data-loading-more", p.isLoadingMore);
    renderBanner(el.productsError, p.lastError, "Try again", () => command("products/refresh"));

    let status;
    if (p.isRefreshing) status = "Refreshing…";
    else if (p.isLoadingMore) status = "Loading more products…";
    else if (p.page === 0 && p.items.length === 0) status = "Pull down or press Refresh to load products.";
    else status = fmt(p.items.length) + " products" + (p.hasMore ? " · scroll for more" : "");
    setText(el.productsStatus, status);

    reconcile(el.products, p.items, (item) => item.id, createProduct, updateProduct);
    el.productsMore.hidden = !(p.hasMore && p.page > 0 && !busy);
    el.productsEnd.hidden = !(p.page > 0 && !p.hasMore && p.items.length > 0);
  }

  function createProduct() {
    return make("li", { class: "product", "data-testid": "product" });
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
      make("span", { class: "price", "data-testid": "product-price", text: item.price || "" }),
      item.badge ? make("span", { class: "badge" + (/sold out|out of stock/i.test(item.badge) ? " muted" : ""),
        text: item.badge }) : "",
    ]));
    node.replaceChildren(...parts);
  }

  function maybeAutoLoadProducts() {
    const p = state.products;
    if (!p || local.productsAutoLoaded) return;
    if (p.page === 0 && p.items.length === 0 && !p.isRefreshing && !p.isLoadingMore && !p.lastError) {
      local.productsAutoLoaded = true;
      command("products/refresh");
    }
  }

  // ---------------------------------------------------------------- Photo detail (a dialog over the search)

  async function openPhoto(id, opener) {
    local.photoShown = id;
    local.photoClosing = false;
    local.photoOpener = opener || null;
    local.photoOpenError = null;
    renderPhoto(state.photo);
    el.photoClose.focus();
    const response = await command("photo/open", { photoId: id });
    if (local.photoShown !== id) return;
    local.photoOpenError = await commandError(response);
    scheduleRender();
  }

  /** A command's failure as an Error object for the banner; null when it was accepted. */
  async function commandError(response) {
    if (!response) return { kind: "network", message: "the server could not be reached", status: null, code: null };
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

  async function closePhoto() {
    if (!photoVisible()) return;
    local.photoShown = null;
    local.photoClosing = true;
    local.photoOpenError = null;
    const opener = local.photoOpener;
    local.photoOpener = null;
    renderPhoto(state.photo);
    if (opener && opener.isConnected) opener.focus();
    const response = await command("photo/close");
    // Until the server's state says the photo is closed (the stream may deliver it after this answer), the
    // view stays closed; if the close failed, the server's state shows again.
    if (local.photoShown === null && (!response || !response.ok)) local.photoClosing = false;
    scheduleRender();
    return response;
  }

  /** The id of the photo the view shows: the one just clicked, else the one the server has open. */
  function shownPhotoId() {
    if (local.photoShown !== null) return local.photoShown;
    const p = state.photo;
    return !local.photoClosing && p && p.photoId !== null ? p.photoId : null;
  }

  const photoVisible = () => shownPhotoId() !== null;

  /** The search result with this id, for a title and thumbnail before the detail has loaded. */
  function searchPhoto(id) {
    const value = state.search && state.search.results.value;
    return value ? value.photos.find((p) => p.id === id) || null : null;
  }

  function formatDate(text, withZone) {
    if (!text) return "–";
    const date = new Date(text);
    if (Number.isNaN(date.getTime())) return text;
    return withZone ? date.toLocaleString() : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  }

  function renderPhoto(p) {
    if (local.photoClosing && (!p || p.photoId === null)) local.photoClosing = false;
    const id = shownPhotoId();
    const visible = id !== null;
    el.photoView.hidden = !visible;
    el.main.inert = visible;
    el.topbar.inert = visible;
    document.body.classList.toggle("has-dialog", visible);
    if (!visible) return;
    setAttr(el.photoView, "data-photo-id", id);

    // The server's state for this photo, or nothing yet (the open is on its way).
    const current = p && p.photoId === id ? p : null;
    const detail = current ? current.detail : null;
    const value = detail && detail.value && detail.value.id === id ? detail.value : null;
    const fallback = searchPhoto(id);
    const title = value ? value.title : fallback ? fallback.title : "";
    setText(el.photoTitle, title && title.trim() ? title : "Untitled");

    const failedToOpen = local.photoOpenError !== null && !current;
    const loading = !failedToOpen && (!current || detail.status === "loading" || current.comments.status === "loading");
    el.photoSpinner.hidden = !loading;
    setAttr(el.photoView, "aria-busy", loading);
    setAttr(el.photoView, "data-detail-status", detail ? detail.status : "loading");
    let status;
    if (failedToOpen) status = "The photo could not be opened.";
    else if (!detail || detail.status === "loading" || detail.status === "idle") status = "Loading the photo…";
    else if (detail.status === "failed") status = "The photo could not be loaded.";
    else status = "";
    setText(el.photoStatus, status);
    renderBanner(el.photoError, failedToOpen ? local.photoOpenError : current ? current.lastError : null, "Try again",
      () => {
        const shown = shownPhotoId();
        if (shown !== null) openPhoto(shown, local.photoOpener);
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
    setText(el.photoTaken, value ? formatDate(value.takenAt, false) : pending);
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

  function createTag() {
    return make("li", { class: "tag", "data-testid": "photo-tag" });
  }

  function updateTag(node, tag) {
    setText(node, tag);
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
    setText(time, formatDate(c.createdAt, true));
    setText(node.querySelector(".comment-text"), c.text);
  }

  el.photoImage.addEventListener("error", () => { el.photoImage.hidden = true; });
  el.photoClose.addEventListener("click", () => closePhoto());
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && photoVisible()) {
      event.preventDefault();
      closePhoto();
    }
  });
  el.photoView.addEventListener("click", (event) => {
    if (event.target === el.photoView) closePhoto(); // a click on the backdrop
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
    local.screen = screen;
    history.replaceState(null, "", "#" + screen);
    renderScreen();
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

  el.searchText.addEventListener("input", () => sendText(el.searchText.value));
  el.searchForm.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!el.searchGo.disabled) command("search/execute", { text: el.searchText.value });
  });
  el.searchCancel.addEventListener("click", () => command("search/cancel"));
  el.photosMore.addEventListener("click", () => command("search/load-more"));
  el.productsRefresh.addEventListener("click", () => command("products/refresh"));
  el.productsCancel.addEventListener("click", () => command("products/cancel"));
  el.productsMore.addEventListener("click", () => command("products/load-more"));

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
    if (pull.distance >= PULL_THRESHOLD) command("products/refresh");
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
    showScreen(location.hash.slice(1) || "search", false);
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
