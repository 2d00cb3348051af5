extension WebClient {
    /// The page. `{{CSS_VERSION}}` and `{{JS_VERSION}}` become the entity tags of the stylesheet and script.
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="color-scheme" content="light dark">
<title>vmhost</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/app.css?v={{CSS_VERSION}}">
<script src="/app.js?v={{JS_VERSION}}" defer></script>
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="topbar">
  <div class="topbar-inner">
    <span class="brand" aria-hidden="true">vm</span>
    <div class="tabs" role="tablist" aria-label="Screens">
      <button type="button" role="tab" id="tab-search" aria-controls="panel-search" aria-selected="true"
              data-screen="search" data-testid="tab-search">Flickr search</button>
      <button type="button" role="tab" id="tab-products" aria-controls="panel-products" aria-selected="false"
              tabindex="-1" data-screen="products" data-testid="tab-products">Products</button>
    </div>
    <span id="connection" class="connection" role="status" aria-live="polite"
          data-state="connecting" data-testid="connection-state">
      <span class="dot" aria-hidden="true"></span><span class="connection-label">Connecting…</span>
    </span>
  </div>
</header>

<main id="main" tabindex="-1">
  <section id="panel-search" class="panel" role="tabpanel" aria-labelledby="tab-search" data-testid="panel-search">
    <h1 id="search-title">Flickr Search</h1>
    <form id="search-form" class="search-form" role="search" novalidate>
      <label for="search-text">Search photos</label>
      <div class="search-row">
        <input id="search-text" name="text" type="search" autocomplete="off" spellcheck="false"
               enterkeyhint="search" placeholder="Try “kittens” (more than 3 letters)"
               aria-describedby="search-hint" data-testid="search-input">
        <button id="search-go" type="submit" class="primary" disabled data-testid="search-go">Go</button>
        <button id="search-cancel" type="button" hidden data-testid="search-cancel">Cancel</button>
      </div>
      <p id="search-hint" class="hint">Results appear as you type. Enter or Go searches at once.</p>
    </form>

    <div id="search-error" class="banner" role="alert" hidden data-testid="search-error"></div>

    <div class="status-row">
      <span id="search-spinner" class="spinner" hidden aria-hidden="true" data-testid="search-spinner"></span>
      <p id="search-status" class="status" aria-live="polite" data-testid="search-status"></p>
    </div>

    <section id="recent" class="recent" aria-labelledby="recent-title" hidden data-testid="recent-searches">
      <h2 id="recent-title">Recent searches</h2>
      <ul id="recent-list" class="recent-list"></ul>
    </section>

    <ul id="photos" class="photo-grid" aria-label="Photos" aria-busy="false" data-testid="photo-grid"></ul>
    <div id="photos-footer" class="list-footer">
      <div id="photos-sentinel" class="sentinel" aria-hidden="true" data-testid="photos-sentinel"></div>
      <button id="photos-more" type="button" hidden data-testid="photos-load-more">Load more photos</button>
      <p id="photos-end" class="hint" hidden>That’s all the photos.</p>
    </div>
  </section>

  <section id="panel-products" class="panel" role="tabpanel" aria-labelledby="tab-products" hidden
           data-testid="panel-products">
    <div id="pull" class="pull" aria-hidden="true" data-testid="pull-indicator">
      <span class="pull-arrow">↓</span> <span class="pull-label">Pull to refresh</span>
    </div>
    <div class="products-head">
      <h1>Products</h1>
      <div class="toolbar">
        <button id="products-refresh" type="button" class="primary" data-testid="products-refresh">Refresh</button>
        <button id="products-cancel" type="button" hidden data-testid="products-cancel">Cancel</button>
      </div>
    </div>

    <div id="products-error" class="banner" role="alert" hidden data-testid="products-error"></div>

    <div class="status-row">
      <span id="products-spinner" class="spinner" hidden aria-hidden="true"></span>
      <p id="products-status" class="status" aria-live="polite" data-testid="products-status"></p>
    </div>

    <ul id="products" class="product-list" aria-label="Products" aria-busy="false" data-testid="product-list"></ul>
    <div id="products-footer" class="list-footer">
      <div id="products-sentinel" class="sentinel" aria-hidden="true" data-testid="products-sentinel"></div>
      <button id="products-more" type="button" hidden data-testid="products-load-more">Load more products</button>
      <p id="products-end" class="hint" hidden>You’ve reached the end of the list.</p>
    </div>
  </section>
</main>
<noscript><p class="banner">This page needs JavaScript to talk to the server.</p></noscript>
</body>
</html>
"""#
}
