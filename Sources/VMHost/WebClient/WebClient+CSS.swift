extension WebClient {
    /// The stylesheet: responsive, light and dark, visible focus, reduced motion respected.
    static let css = #"""
:root {
  --bg: #f5f6f8; --surface: #ffffff; --text: #1b1f24; --muted: #5d6673; --border: #dde1e6;
  --accent: #0b63ce; --accent-text: #ffffff; --accent-soft: #e6f0fc;
  --danger: #a4161a; --danger-soft: #fdecec; --ok: #1a7f37; --warn: #b36b00;
  --radius: 12px; --shadow: 0 1px 2px rgba(16, 24, 40, .06), 0 1px 3px rgba(16, 24, 40, .1);
  --focus: 0 0 0 3px rgba(11, 99, 206, .45);
  color-scheme: light dark;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f1216; --surface: #181c22; --text: #e7eaee; --muted: #9aa4b1; --border: #2b313a;
    --accent: #5aa2ff; --accent-text: #06121f; --accent-soft: #16263b;
    --danger: #ff8a8a; --danger-soft: #3a1517; --ok: #56d37a; --warn: #f0b45a;
    --shadow: 0 1px 3px rgba(0, 0, 0, .5);
    --focus: 0 0 0 3px rgba(90, 162, 255, .55);
  }
}
* { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; background: var(--bg); color: var(--text);
  overscroll-behavior-y: contain;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
}
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0 0 .75rem; }
h2 { font-size: 1rem; margin: 0 0 .5rem; color: var(--muted); font-weight: 600; }
[hidden] { display: none !important; }
:focus-visible { outline: none; box-shadow: var(--focus); }
.skip-link {
  position: absolute; left: .5rem; top: -3rem; z-index: 20; padding: .5rem .75rem;
  background: var(--surface); color: var(--text); border-radius: 8px;
}
.skip-link:focus { top: .5rem; }

/* Top bar */
.topbar {
  position: sticky; top: 0; z-index: 10; background: var(--surface);
  border-bottom: 1px solid var(--border); box-shadow: var(--shadow);
}
.topbar-inner {
  max-width: 1100px; margin: 0 auto; padding: .5rem 1rem; display: flex; align-items: center; gap: .75rem;
}
.brand {
  display: inline-grid; place-items: center; width: 2rem; height: 2rem; flex: none; border-radius: 8px;
  background: var(--accent); color: var(--accent-text); font-weight: 700; font-size: .9rem;
}
.tabs { display: flex; gap: .25rem; flex: 1; min-width: 0; }
.tabs [role="tab"] {
  border: 0; background: transparent; color: var(--muted); padding: .5rem .75rem; border-radius: 8px;
  font-weight: 600; white-space: nowrap;
}
.tabs [role="tab"][aria-selected="true"] { background: var(--accent-soft); color: var(--accent); }
.tabs [role="tab"]:hover { color: var(--text); }
.connection {
  display: inline-flex; align-items: center; gap: .4rem; font-size: .85rem; color: var(--muted);
  white-space: nowrap;
}
.connection .dot { width: .6rem; height: .6rem; border-radius: 50%; background: var(--warn); }
.connection[data-state="live"] .dot { background: var(--ok); }
.connection[data-state="reconnecting"] .dot { background: var(--danger); animation: pulse 1s infinite alternate; }

/* Panels */
main { max-width: 1100px; margin: 0 auto; padding: 1.25rem 1rem 3rem; outline: none; }
.panel { position: relative; }
button {
  font: inherit; cursor: pointer; border-radius: 8px; border: 1px solid var(--border);
  background: var(--surface); color: var(--text); padding: .55rem 1rem; min-height: 2.5rem;
}
button:hover:not(:disabled) { border-color: var(--muted); }
button:disabled { cursor: not-allowed; opacity: .5; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); font-weight: 600; }
button.primary:hover:not(:disabled) { filter: brightness(1.08); border-color: var(--accent); }
.hint { color: var(--muted); font-size: .85rem; margin: .35rem 0 0; }

/* Search form */
.search-form label { display: block; font-weight: 600; margin-bottom: .35rem; }
.search-row { display: flex; gap: .5rem; }
.search-row input {
  flex: 1; min-width: 0; font: inherit; padding: .55rem .75rem; min-height: 2.5rem;
  border: 1px solid var(--border); border-radius: 8px; background: var(--surface); color: var(--text);
}
.search-row input:focus-visible { border-color: var(--accent); }

/* Status, spinner, banners */
.status-row { display: flex; align-items: center; gap: .5rem; min-height: 2rem; margin: .75rem 0 .5rem; }
.status { margin: 0; color: var(--muted); font-size: .9rem; }
.spinner {
  width: 1.1rem; height: 1.1rem; flex: none; border-radius: 50%;
  border: 2px solid var(--border); border-top-color: var(--accent); animation: spin .8s linear infinite;
}
.banner {
  display: flex; align-items: flex-start; gap: .75rem; justify-content: space-between;
  margin: .75rem 0; padding: .75rem 1rem; border-radius: var(--radius);
  background: var(--danger-soft); color: var(--danger); border: 1px solid currentColor;
}
.banner button { flex: none; padding: .25rem .75rem; min-height: 2rem; }

/* Recent searches */
.recent { margin: .5rem 0 1rem; }
.recent-list { list-style: none; margin: 0; padding: 0 0 .25rem; display: flex; gap: .5rem; overflow-x: auto; }
.recent-list button {
  display: inline-flex; align-items: center; gap: .5rem; padding: .25rem .75rem .25rem .25rem;
  border-radius: 999px; white-space: nowrap; min-height: 2.25rem;
}
.recent-list img, .recent-list .thumb-fallback {
  width: 28px; height: 28px; border-radius: 50%; object-fit: cover; background: var(--border); flex: none;
}
.recent-list .count { color: var(--muted); font-size: .8rem; }

/* Photo grid */
.photo-grid {
  list-style: none; margin: 0; padding: 0; display: grid; gap: .75rem;
  grid-template-columns: repeat(auto-fill, minmax(180px, 1fr));
}
.photo {
  background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius);
  overflow: hidden; box-shadow: var(--shadow); display: flex; flex-direction: column;
}
.photo .frame {
  aspect-ratio: 4 / 3; background: linear-gradient(135deg, var(--accent-soft), var(--border));
  position: relative; overflow: hidden;
}
.photo img {
  display: block; width: 100%; height: 100%; object-fit: cover; color: transparent;
  position: absolute; inset: 0;
}
.photo .meta { padding: .5rem .75rem .65rem; display: flex; flex-direction: column; gap: .25rem; min-width: 0; }
.photo .title {
  margin: 0; font-size: .9rem; font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap;
}
.photo .counts { display: flex; gap: 1rem; margin: 0; font-size: .8rem; color: var(--muted); }
.photo .count { display: inline-flex; align-items: center; gap: .3rem; font-variant-numeric: tabular-nums; }
.photo .count[data-loaded="false"] { opacity: .55; }
.icon { width: 1em; height: 1em; fill: currentColor; flex: none; }
.icon-heart { color: #d6336c; }

/* Product list */
.products-head { display: flex; align-items: center; justify-content: space-between; gap: .75rem; flex-wrap: wrap; }
.products-head h1 { margin: 0; }
.toolbar { display: flex; gap: .5rem; }
.product-list { list-style: none; margin: 0; padding: 0; display: grid; gap: .6rem; }
.product-list[aria-busy="true"] { opacity: .85; }
.product {
  display: flex; gap: .9rem; align-items: center; padding: .75rem 1rem; background: var(--surface);
  border: 1px solid var(--border); border-radius: var(--radius); box-shadow: var(--shadow);
}
.product img {
  width: 64px; height: 64px; border-radius: 8px; object-fit: cover; flex: none; background: var(--border);
}
.product .body { flex: 1; min-width: 0; }
.product .title { margin: 0; font-weight: 600; font-size: 1rem; }
.product .subtitle, .product .detail { margin: 0; color: var(--muted); font-size: .875rem; }
.product .side { text-align: right; display: flex; flex-direction: column; align-items: flex-end; gap: .3rem; }
.product .price { font-weight: 700; font-variant-numeric: tabular-nums; white-space: nowrap; }
.badge {
  display: inline-block; font-size: .75rem; font-weight: 600; padding: .1rem .5rem; border-radius: 999px;
  background: var(--accent-soft); color: var(--accent); white-space: nowrap;
}
.badge.muted { background: var(--border); color: var(--muted); }

/* Footers and pull-to-refresh */
.list-footer { display: flex; flex-direction: column; align-items: center; gap: .5rem; margin-top: 1rem; }
.sentinel { width: 100%; height: 1px; }
.pull {
  height: 0; overflow: hidden; display: flex; align-items: center; justify-content: center; gap: .4rem;
  color: var(--muted); font-size: .9rem; transition: height .2s ease;
}
.pull.dragging { transition: none; }
.pull-arrow { display: inline-block; transition: transform .2s ease; }
.pull.armed .pull-arrow { transform: rotate(180deg); }

@keyframes spin { to { transform: rotate(360deg); } }
@keyframes pulse { from { opacity: 1; } to { opacity: .35; } }
@media (prefers-reduced-motion: reduce) {
  *, *::before, *::after { animation-duration: 2s !important; transition: none !important; }
}

/* Narrow phones */
@media (max-width: 560px) {
  .topbar-inner { padding: .5rem .75rem; gap: .5rem; }
  .brand { display: none; }
  .tabs [role="tab"] { padding: .5rem .6rem; }
  .connection .connection-label {
    position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0);
  }
  main { padding: 1rem .75rem 3rem; }
  .photo-grid { grid-template-columns: repeat(2, minmax(0, 1fr)); gap: .5rem; }
  .product { padding: .65rem .75rem; gap: .65rem; }
  .product img { width: 48px; height: 48px; }
}
"""#
}
