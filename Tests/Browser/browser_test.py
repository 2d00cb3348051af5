"""Headless-Chromium test of vmhost's thin web client (served at `/`).

Usage: browser_test.py [--h2] [--fake-url URL] [--binary PATH] BASE_URL SCREENSHOT_DIR
Runs the scenario at a desktop size (1280x900) and a phone size (390x844); exits non-zero with the failed step.
The photo step opens a search result in the detail view (PhotoState over the multiplexed stream), keeps a
screenshot of it (SCREENSHOT_DIR/{desktop,phone}-06b-photo.png), checks the URL (#photo/<id>), the title, the
date format and that Tab stays in the dialog, closes it with Back, opens it with Forward and closes it with Escape.

--fake-url URL: the embedded fake upstream of the vmhost at BASE_URL (its `/_control` injects faults, latency and
empty results): the scenario then also drives the error, empty, loading and cancel screens. --binary PATH: the vmhost
binary, for the restart scenarios (`restart_scenario`): a vmhost of its own on a free port, using that fake upstream,
stopped and started again while the page stays open, without Redis and with a redis-server of its own. Every screen
(and the open photo) also gets an axe-core 4 run (axe-selenium-python 3.0.0): no serious or critical violation.

--h2: BASE_URL is HAProxy's TLS edge of `scripts/cluster` (https, HTTP/2, a self-signed certificate). The scenario
runs once, at the desktop size (label h2-desktop), with Chromium ignoring certificate errors, and also checks that
the page, the `/v1/` requests and the event stream went over HTTP/2 and that the thumbnails, which the nodes'
embedded fake upstream serves over plain http://127.0.0.1, load in the https page.
"""

import argparse
import json
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.error
import urllib.request

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait

try:
    from axe_selenium_python import Axe
except ImportError:  # pragma: no cover - scripts/browser-test installs it
    Axe = None

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
TIMEOUT = 15


class StepFailed(Exception):
    """A step of the scenario did not reach its expected state."""


class Scenario:
    """One browser window running the whole scenario at one window size."""

    def __init__(self, base_url, screenshots, label, width, height, touch=False, h2=False, fake_url=None):
        self.base_url = base_url.rstrip("/")
        self.fake_url = fake_url
        self.words = {word: f"{word} {label}" for word in (
            "fjords", "glaciers", "volcanoes", "harbor", "forest", "meadow")}
        self.touch = touch
        self.h2 = h2
        # (type, url, protocol) of every response Chromium received (h2 pass only: from its performance log).
        self.responses = []
        self.screenshots = screenshots
        self.label = label
        self.step_name = "start the browser"
        options = Options()
        options.binary_location = CHROMIUM
        for flag in (
            "--headless=new",
            "--no-sandbox",
            "--disable-dev-shm-usage",
            "--disable-gpu",
            "--no-first-run",
            "--disable-extensions",
            f"--window-size={width},{height}",
            # Only loopback traffic: external thumbnails fail at once instead of timing out.
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        ):
            options.add_argument(flag)
        logging_prefs = {"browser": "ALL"}
        if h2:
            # The cluster's certificate is self-signed (made at its start); only this pass ignores that.
            options.add_argument("--ignore-certificate-errors")
            # Network events (Network.responseReceived carries the protocol of each response, also of the
            # EventSource, which gets no Resource Timing entry while its stream stays open).
            logging_prefs["performance"] = "ALL"
            options.add_experimental_option("perfLoggingPrefs", {"enableNetwork": True, "enablePage": False})
        options.set_capability("goog:loggingPrefs", logging_prefs)
        self.driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
        self.driver.set_window_size(width, height)
        self.driver.set_page_load_timeout(TIMEOUT)
        if touch:
            self.driver.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 1})

    # -------------------------------------------------------------- helpers

    def step(self, name):
        self.step_name = name
        print(f"[{self.label}] {name}", flush=True)

    def wait(self, condition, what, timeout=TIMEOUT):
        try:
            return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(lambda d: condition())
        except TimeoutException:
            raise StepFailed(f"timed out after {timeout}s waiting for {what}") from None

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def by_testid(self, testid):
        return self.driver.find_element(By.CSS_SELECTOR, f'[data-testid="{testid}"]')

    def all_by_testid(self, testid):
        return self.driver.find_elements(By.CSS_SELECTOR, f'[data-testid="{testid}"]')

    def count(self, testid):
        return self.js(f'return document.querySelectorAll(\'[data-testid="{testid}"]\').length;')

    def shot(self, name):
        path = f"{self.screenshots}/{self.label}-{name}.png"
        self.driver.save_screenshot(path)
        print(f"[{self.label}]   screenshot {path}", flush=True)

    def search_state(self):
        return self.js("return window.vmhost && window.vmhost.state.search;")

    def photo_state(self):
        return self.js("return window.vmhost && window.vmhost.state.photo;")

    def products_state(self):
        return self.js("return window.vmhost && window.vmhost.state.products;")

    def type_search(self, text):
        field = self.by_testid("search-input")
        field.click()
        self.js("arguments[0].value = '';", field)
        field.send_keys(text)

    def scroll_to_bottom(self):
        self.js("window.scrollTo(0, document.documentElement.scrollHeight);")

    def wait_search_settled(self, search_string):
        def settled():
            s = self.search_state()
            value = s and s["results"]["value"]
            return (
                s is not None and not s["isSearching"] and s["results"]["status"] == "loaded"
                and value["searchString"] == search_string
                and self.count("photo") == len(value["photos"])
            )

        self.wait(settled, f"the results of '{search_string}'")
        return self.search_state()["results"]["value"]

    def photo_titles(self):
        return self.js(
            "return Array.from(document.querySelectorAll('[data-testid=\"photo-title\"]'))"
            ".map(e => e.textContent);"
        )

    def control(self, **behavior):
        """Sets the fake upstream's behaviour (PUT /_control; what is not given is reset)."""
        request = urllib.request.Request(
            self.fake_url + "/_control", method="PUT", data=json.dumps(behavior).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=5) as response:
            if response.status != 200:
                raise StepFailed(f"PUT /_control answered {response.status}")

    def axe(self, screen):
        """axe-core 4 on the page as it is: no serious or critical violation."""
        if Axe is None:
            raise StepFailed("axe-selenium-python is not installed")
        axe = Axe(self.driver)
        axe.inject()
        results = axe.run()
        version = results.get("testEngine", {}).get("version", "?")
        if not version.startswith("4."):
            raise StepFailed(f"axe-core {version}, expected 4.x")
        bad = [v for v in results["violations"] if v.get("impact") in ("serious", "critical")]
        if bad:
            summary = [(v["id"], v["impact"], [n["target"] for n in v["nodes"][:3]]) for v in bad]
            raise StepFailed(f"axe-core {version} on {screen}: {summary}")
        print(f"[{self.label}]   axe-core {version} on {screen}: no serious or critical violation "
              f"({len(results['violations'])} minor)", flush=True)

    def url(self):
        return self.js("return location.pathname + location.search + location.hash;")

    def active_testid(self):
        return self.js("return document.activeElement && document.activeElement.dataset.testid;")

    def shown(self, testid):
        return self.js(f'const e = document.querySelector(\'[data-testid="{testid}"]\'); '
                       'return !!e && !e.hidden && e.getClientRects().length > 0;')

    def on_top(self, testid):
        """Shown and not covered: the element at its centre is inside it (e.g. not under the photo sheet)."""
        return self.js(f'const e = document.querySelector(\'[data-testid="{testid}"]\'); '
                       'if (!e || e.hidden) return false; const r = e.getBoundingClientRect(); '
                       'const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); '
                       'return !!top && e.contains(top);')

    def text_of(self, testid):
        return self.js(f'const e = document.querySelector(\'[data-testid="{testid}"]\'); '
                       'return e ? e.textContent.trim() : null;')

    def search_and_settle(self, text):
        self.js("window.scrollTo(0, 0);")
        self.type_search(text)
        self.by_testid("search-go").click()
        return self.wait_search_settled(text)

    def collect_responses(self):
        """Moves the responses in Chromium's performance log (drained by each read) to `self.responses`."""
        for entry in self.driver.get_log("performance"):
            message = json.loads(entry["message"])["message"]
            if message["method"] == "Network.responseReceived":
                params = message["params"]
                response = params["response"]
                self.responses.append((params["type"], response["url"], response.get("protocol")))

    def check_event_stream_h2(self):
        """The page came over h2 (Navigation Timing) and so did the EventSource's response (Network events)."""
        navigation = self.js(
            "const n = performance.getEntriesByType('navigation')[0];"
            "return n ? [n.name, n.nextHopProtocol] : null;"
        )
        if not navigation or navigation[1] != "h2":
            raise StepFailed(f"the page did not come over HTTP/2: {navigation}")

        def streams():
            self.collect_responses()
            return [r for r in self.responses if r[0] == "EventSource"]

        self.wait(streams, "the EventSource's response in Chromium's network log")
        wrong = [r for r in streams() if r[2] != "h2" or not r[1].startswith(self.base_url + "/v1/sessions/")]
        if wrong:
            raise StepFailed(f"event streams not over HTTP/2 from {self.base_url}: {wrong}")
        print(f"[{self.label}]   page and event stream over h2: {streams()[0][1]}", flush=True)

    def check_requests_h2(self):
        """Every `/v1/` request of the page (Resource Timing, same origin) and every response from the proxy
        (Network events) went over h2."""
        entries = self.js(
            "return performance.getEntriesByType('resource')"
            ".filter(e => e.name.startsWith(arguments[0] + '/v1/'))"
            ".map(e => [e.name, e.initiatorType, e.nextHopProtocol]);",
            self.base_url,
        )
        fetches = [e for e in entries if e[1] == "fetch"]
        if not any(e[0] == self.base_url + "/v1/sessions" for e in fetches) or len(fetches) < 10:
            raise StepFailed(f"too few /v1/ fetches in Resource Timing: {entries[:5]} ({len(entries)} entries)")
        wrong = [e for e in entries if e[2] != "h2"]
        if wrong:
            raise StepFailed(f"{len(wrong)} of {len(entries)} /v1/ requests not over HTTP/2: {wrong[:5]}")
        self.collect_responses()
        from_proxy = [r for r in self.responses if r[1].startswith(self.base_url + "/")]
        wrong = [r for r in from_proxy if r[2] != "h2"]
        if wrong:
            raise StepFailed(f"{len(wrong)} of {len(from_proxy)} responses from the proxy not over HTTP/2: {wrong[:5]}")
        print(f"[{self.label}]   {len(entries)} /v1/ requests and {len(from_proxy)} responses from the proxy, "
              "all over h2", flush=True)

    def check_thumbnails_load(self):
        """The first thumbnails are shown, whatever their scheme. The embedded fake upstream serves them over
        http://127.0.0.1:PORT, mixed content in this https page: Chromium loads them (passive content from an IP
        address is not upgraded to https) and logs a Mixed Content WARNING per image, not an error, so the
        console check below stays as strict as in the direct pass."""
        script = (
            "return Array.from(document.querySelectorAll('[data-testid=\"photo\"] img')).slice(0, 3)"
            ".map(i => [i.currentSrc, i.complete && i.naturalWidth > 0 && !i.hidden]);"
        )
        self.wait(
            lambda: len(images := self.js(script)) == 3 and all(ok for _, ok in images),
            "the first three thumbnails to load in the https page",
        )
        insecure = sum(src.startswith("http://") for src, _ in self.js(script))
        print(f"[{self.label}]   first thumbnails loaded ({insecure} of 3 over plain http)", flush=True)

    # -------------------------------------------------------------- the scenario

    def run(self):
        driver = self.driver

        self.step("RFC 6902 apply in the page")
        self.driver.get(self.base_url + "/")
        self.wait(lambda: self.js("return !!window.vmhost;"), "the script to start")
        if self.h2:
            # Room for every request of the scenario (the default buffer keeps the first 250 entries).
            self.js("performance.setResourceTimingBufferSize(100000);")
        self.check_patch_apply()

        self.step("connection becomes live")
        self.wait(
            lambda: self.by_testid("connection-state").get_attribute("data-state") == "live"
            and self.search_state() is not None and self.products_state() is not None,
            "connection state 'live' with both snapshots",
        )
        self.shot("01-live")
        if not self.h2:
            self.axe("the start screen")
        if self.h2:
            self.step("the page and the event stream came over HTTP/2")
            self.check_event_stream_h2()

        self.step("Go is disabled for 'cat'")
        self.type_search("cat")
        self.wait(lambda: (self.search_state() or {}).get("searchText") == "cat", "searchText 'cat'")
        self.wait(lambda: not self.by_testid("search-go").is_enabled(), "Go disabled")

        self.step("typing 'kittens' enables Go and shows thumbnails")
        self.type_search("kittens")
        self.wait(lambda: self.by_testid("search-go").is_enabled(), "Go enabled for 'kittens'")
        first_page = self.wait_search_settled("kittens")
        first_count = len(first_page["photos"])
        if first_count == 0:
            raise StepFailed("the search for 'kittens' returned no photos")
        titles = self.photo_titles()
        if len(titles) != first_count or not all(t.strip() for t in titles):
            raise StepFailed(f"photo titles missing: {titles[:5]}")
        images = self.js(
            "return Array.from(document.querySelectorAll('[data-testid=\"photo\"] img'))"
            ".map(i => [i.getAttribute('src'), i.getAttribute('alt'), i.getAttribute('width')]);"
        )
        if any(not src or alt is None or not width for src, alt, width in images):
            raise StepFailed(f"photo images lack src, alt or fixed size: {images[:3]}")
        status = self.by_testid("search-status").text
        if "kittens" not in status:
            raise StepFailed(f"status does not name the search: {status!r}")
        kittens_first_ids = [p["id"] for p in first_page["photos"][:5]]
        if self.h2:
            self.check_thumbnails_load()
        self.shot("02-kittens")

        self.step("favorites and comments counts appear for photos in view")
        self.js("window.scrollTo(0, 0);")
        self.wait(
            lambda: self.js(
                "const els = document.querySelectorAll('[data-testid=\"photo-favorites\"][data-loaded=\"true\"]');"
                "const cs = document.querySelectorAll('[data-testid=\"photo-comments\"][data-loaded=\"true\"]');"
                "return els.length > 0 && cs.length > 0;"
            ),
            "favorites and comments counts of the visible photos",
        )
        self.shot("03-counts")

        self.step("scrolling down loads more photos")
        for _ in range(40):
            self.scroll_to_bottom()
            if self.count("photo") > first_count:
                break
            time.sleep(0.1)
        self.wait(lambda: self.count("photo") > first_count, f"more than {first_count} photos")
        self.wait(lambda: not self.search_state()["isSearching"], "load-more to finish")
        grown = self.count("photo")

        self.step("photos scrolled into view get their counts")
        loaded_before = self.js(
            "return document.querySelectorAll('[data-testid=\"photo-favorites\"][data-loaded=\"true\"]').length;"
        )
        last_photo = self.all_by_testid("photo")[-1]
        self.js("arguments[0].scrollIntoView({block: 'center'});", last_photo)
        self.wait(
            lambda: last_photo.find_element(By.CSS_SELECTOR, '[data-testid="photo-favorites"]')
            .get_attribute("data-loaded") == "true",
            "the counts of the last photo after scrolling to it",
        )
        loaded_after = self.js(
            "return document.querySelectorAll('[data-testid=\"photo-favorites\"][data-loaded=\"true\"]').length;"
        )
        if loaded_after <= loaded_before:
            raise StepFailed(f"no new counts after scrolling ({loaded_before} → {loaded_after})")
        print(f"[{self.label}]   {grown} photos, counts for {loaded_after}", flush=True)
        self.shot("04-more-photos")

        self.step("a second search ('sunset') replaces the results")
        self.js("window.scrollTo(0, 0);")
        self.type_search("sunset")
        driver.find_element(By.CSS_SELECTOR, '[data-testid="search-go"]').click()
        sunset = self.wait_search_settled("sunset")
        if [p["id"] for p in sunset["photos"][:5]] == kittens_first_ids:
            raise StepFailed("'sunset' shows the same photos as 'kittens'")
        self.wait(lambda: len(self.all_by_testid("recent-search")) >= 2, "two recent searches")
        recent = [b.get_attribute("data-search") for b in self.all_by_testid("recent-search")]
        if recent[:2] != ["sunset", "kittens"]:
            raise StepFailed(f"recent searches are {recent}, expected sunset then kittens")
        self.wait(lambda: "?q=sunset#search" in self.url(), "the URL to say ?q=sunset")
        self.wait(lambda: "“sunset”" in driver.title, "the page title to name the query")
        self.shot("05-sunset")
        if not self.h2:
            self.axe("the search results")

        self.step("clicking the recent search 'kittens' brings its results back")
        button = driver.find_element(By.CSS_SELECTOR, '[data-testid="recent-search"][data-search="kittens"]')
        button.click()
        again = self.wait_search_settled("kittens")
        if [p["id"] for p in again["photos"][:5]] != kittens_first_ids:
            raise StepFailed("the recent search did not bring back the 'kittens' photos")
        self.wait(lambda: self.by_testid("search-input").get_attribute("value") == "kittens",
                  "the search field to show 'kittens'")
        # The highlight is on the chip that was clicked (now first), and so is the focus.
        self.wait(
            lambda: self.js("const c = document.querySelector('[data-testid=\"recent-search\"][aria-current=\"true\"]');"
                            "return c && c.dataset.search;") == "kittens"
            and self.js("return document.activeElement.dataset.search;") == "kittens",
            "the highlight and the focus on the clicked chip 'kittens'")
        self.shot("06-recent-kittens")

        self.step("keyboard: a photo card's focus ring is drawn in full")
        self.by_testid("search-input").click()
        for _ in range(40):
            if self.active_testid() == "photo-open":
                break
            ActionChains(driver).send_keys(Keys.TAB).perform()
        if self.active_testid() != "photo-open":
            raise StepFailed("Tab never reached a photo card")
        ring = self.js(
            "const f = document.activeElement; const card = f.closest('[data-testid=\"photo\"]');"
            "return [f.matches(':focus-visible'), getComputedStyle(card).boxShadow, getComputedStyle(f).outlineStyle,"
            " getComputedStyle(f).outlineOffset, getComputedStyle(card.parentElement).overflow];")
        if not ring[0] or "rgba(11, 99, 206" not in ring[1] or ring[2] == "none" or not ring[3].startswith("-") \
                or ring[4] != "visible":
            raise StepFailed(f"the focused card has no full focus ring: {ring}")
        self.shot("06a-focus-ring")

        self.step("a search result opens its photo: detail view, then Escape closes it")
        self.check_photo_detail(again["photos"][0])

        self.step("products: refresh shows 20 items")
        self.by_testid("tab-products").click()
        self.wait(lambda: self.by_testid("panel-products").is_displayed(), "the products screen")
        # The screen loads its first page by itself when shown empty; let that finish, then refresh.
        self.wait(
            lambda: (p := self.products_state()) is not None and p["page"] >= 1 and not p["isRefreshing"],
            "the first page of products",
        )
        before = self.products_state()["version"]
        self.by_testid("products-refresh").click()
        self.wait(
            lambda: (p := self.products_state())["version"] >= before + 2 and not p["isRefreshing"]
            and p["page"] == 1 and self.count("product") == 20
            and self.by_testid("product-list").get_attribute("aria-busy") == "false",
            "20 products after refresh",
        )
        first_product = self.by_testid("product")
        for testid in ("product-title", "product-price"):
            if not first_product.find_element(By.CSS_SELECTOR, f'[data-testid="{testid}"]').text.strip():
                raise StepFailed(f"the first product has an empty {testid}")
        if not driver.title.startswith("Products") or not self.url().endswith("#products"):
            raise StepFailed(f"title {driver.title!r} and URL {self.url()!r} on the products screen")
        # The envelope format's amounts name no currency: none is shown.
        if any(p.get_attribute("data-currency") for p in self.all_by_testid("product-price")):
            raise StepFailed("a currency is shown for the envelope format's amounts")
        self.shot("07-products")
        if not self.h2:
            self.axe("the products")

        if self.touch:
            self.step("products: pull to refresh with a touch gesture")
            self.js("window.scrollTo(0, 0);")
            before = self.products_state()["version"]
            self.pull_down(x=width_half(self.driver), start_y=250, distance=300)
            self.wait(
                lambda: (p := self.products_state())["version"] >= before + 2 and not p["isRefreshing"]
                and self.count("product") == 20,
                "a refresh after pulling down",
            )

        self.step("products: scrolling down loads more items")
        for _ in range(40):
            self.scroll_to_bottom()
            if self.count("product") > 20:
                break
            time.sleep(0.1)
        self.wait(lambda: self.count("product") > 20, "more than 20 products")
        self.wait(lambda: not self.products_state()["isLoadingMore"], "load-more to finish")
        print(f"[{self.label}]   {self.count('product')} products", flush=True)
        self.shot("08-more-products")

        self.step("keyboard: arrow keys switch tabs")
        tab = self.by_testid("tab-products")
        tab.send_keys("\ue012")  # ArrowLeft
        self.wait(lambda: self.by_testid("panel-search").is_displayed(), "the search screen via the keyboard")

        if self.fake_url:
            self.check_shared_link()
            self.check_errors()
            self.check_cancel_and_empty()
            self.check_product_errors()

        if self.h2:
            self.step("every API request went over HTTP/2")
            self.check_requests_h2()

        self.step("no script errors in the console")
        # NB: Chromium logs every 4xx answer to fetch() as a SEVERE "network" entry. A 409 to a command is the
        # protocol's answer to a command sent on a state the server has moved past (`command_disabled`, e.g.
        # an infinite-scroll load-more racing the patch that ends the list); the client expects it and waits
        # for the next change (app.js `command`). Every other failed request and every script error counts.
        errors = [
            entry for entry in driver.get_log("browser")
            if entry["level"] == "SEVERE" and "127.0.0.1" in entry.get("message", "")
            and "favicon" not in entry["message"]
            and not (entry.get("source") == "network" and "/v1/sessions/" in entry["message"]
                     and "status of 409" in entry["message"])
        ]
        if errors:
            raise StepFailed(f"console errors: {errors}")

    def check_photo_detail(self, photo):
        """Opens `photo` from the results: the detail view shows the server's PhotoState (large image, title,
        owner, date, views, tags, description, comments); a screenshot is kept; Escape closes it on the server
        too and gives the focus back to the photo."""
        tile = self.driver.find_element(
            By.CSS_SELECTOR, f'[data-testid="photo"][data-photo-id="{photo["id"]}"] [data-testid="photo-open"]'
        )
        self.js("arguments[0].scrollIntoView({block: 'center'});", tile)
        before_open = self.url()
        tile.click()
        self.wait(lambda: self.by_testid("photo-view").is_displayed(), "the photo detail view")
        self.wait(lambda: self.url().endswith("#photo/" + photo["id"]), "the URL to name the open photo")
        if self.js("return document.activeElement && document.activeElement.dataset.testid;") != "photo-close":
            raise StepFailed("the detail view did not move the focus to its close button")
        self.wait(
            lambda: (p := self.photo_state()) is not None and p["photoId"] == photo["id"]
            and p["detail"]["status"] == "loaded" and p["comments"]["status"] == "loaded",
            f"the detail and comments of photo {photo['id']} to load",
        )
        state = self.photo_state()
        detail, comments = state["detail"]["value"], state["comments"]["value"]
        self.wait(
            lambda: self.by_testid("photo-view").get_attribute("aria-busy") == "false"
            and self.count("photo-comment") == len(comments),
            "the detail view to render the loaded photo",
        )
        shown = self.js(
            """
            const text = (id) => document.querySelector('[data-testid="' + id + '"]').textContent.trim();
            return {
              title: text("photo-view-title"), owner: text("photo-owner"), taken: text("photo-taken"),
              views: text("photo-views"), description: text("photo-description"),
              image: document.querySelector('[data-testid="photo-image"]').getAttribute("src"),
              imageHidden: document.querySelector('[data-testid="photo-image"]').hidden,
              tags: Array.from(document.querySelectorAll('[data-testid="photo-tag"]')).map((t) => t.textContent),
              comments: Array.from(document.querySelectorAll('[data-testid="photo-comment"] .comment-text'))
                .map((c) => c.textContent),
            };
            """
        )
        expected_title = detail["title"].strip() or "Untitled"
        problems = []
        if shown["title"] != expected_title:
            problems.append(f"title {shown['title']!r}, expected {expected_title!r}")
        if shown["owner"] != (detail["owner"] or "–"):
            problems.append(f"owner {shown['owner']!r}, expected {detail['owner']!r}")
        if shown["image"] != detail["imageUrl"] or shown["imageHidden"]:
            problems.append(f"image {shown['image']!r}, expected {detail['imageUrl']!r}")
        if detail["takenAt"] and shown["taken"] in ("", "…", "–"):
            problems.append(f"no date shown for {detail['takenAt']!r}")
        if shown["tags"] != detail["tags"]:
            problems.append(f"tags {shown['tags']}, expected {detail['tags']}")
        if shown["description"] != detail["description"].strip():
            problems.append(f"description {shown['description'][:60]!r}, expected {detail['description'][:60]!r}")
        if shown["comments"] != [c["text"] for c in comments]:
            problems.append(f"comments {shown['comments'][:3]}, expected {[c['text'] for c in comments][:3]}")
        if problems:
            raise StepFailed("the detail view does not show the photo state: " + "; ".join(problems))
        print(f"[{self.label}]   photo {photo['id']}: {len(detail['tags'])} tags, {len(comments)} comments",
              flush=True)
        if self.driver.title != expected_title + " · vmhost":
            raise StepFailed(f"the page title is {self.driver.title!r} with the photo open")
        # One date format, the browser's locale's, for the photo's date and the comments' alike.
        dates = self.js(
            "const f = new Intl.DateTimeFormat(undefined, {dateStyle: 'medium', timeStyle: 'short'});"
            "const s = window.vmhost.state.photo;"
            "return [s.detail.value.takenAt ? f.format(new Date(s.detail.value.takenAt)) : '–',"
            " document.querySelector('[data-testid=\"photo-taken\"]').textContent,"
            " s.comments.value.map((c) => f.format(new Date(c.createdAt))),"
            " Array.from(document.querySelectorAll('[data-testid=\"photo-comment\"] time')).map((t) => t.textContent)];")
        if dates[0] != dates[1] or dates[2] != dates[3]:
            raise StepFailed(f"dates not in the one locale format: {dates}")
        self.shot("06b-photo")
        if not self.h2:
            self.axe("the open photo")

        # Tab and Shift+Tab stay in the dialog.
        for keys in [Keys.TAB] * 12 + [Keys.SHIFT + Keys.TAB] * 4:
            ActionChains(self.driver).send_keys(keys).perform()
            if not self.js("return document.getElementById('photo-view').contains(document.activeElement);"):
                raise StepFailed(f"the focus left the photo dialog: {self.js('return document.activeElement.outerHTML;')[:120]}")

        # Back closes the photo (its history entry), Forward opens it again.
        self.driver.back()
        self.wait(lambda: not self.by_testid("photo-view").is_displayed(), "Back to close the photo")
        self.wait(lambda: self.url() == before_open, f"the URL back to {before_open}")
        self.wait(lambda: (p := self.photo_state()) is not None and p["photoId"] is None,
                  "the server's photo closed after Back")
        self.driver.forward()
        self.wait(lambda: self.by_testid("photo-view").is_displayed()
                  and (p := self.photo_state()) is not None and p["photoId"] == photo["id"]
                  and p["detail"]["status"] == "loaded", "Forward to open the photo again")

        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        self.wait(lambda: not self.by_testid("photo-view").is_displayed(), "Escape to close the detail view")
        self.wait(
            lambda: (p := self.photo_state()) is not None and p["photoId"] is None
            and p["detail"]["status"] == "idle" and p["comments"]["status"] == "idle",
            "the server's photo state to return to idle after close",
        )
        if self.js("return document.activeElement && document.activeElement.dataset.testid;") != "photo-open":
            raise StepFailed("closing the detail view did not give the focus back to the photo")
        self.wait(lambda: "#photo/" not in self.url(), "the URL without the photo after Escape")

    def check_shared_link(self):
        """A link with ?q= and #photo/<id> opens the same screen in a new session (a tab of its own)."""
        self.step("a shared link ?q=…#photo/<id> opens the same screen")
        sunset = self.search_state()["recentSearches"]
        photo = self.photo_state()
        link_query = "kittens"
        photo_id = self.wait_search_settled_any()["photos"][1]["id"]
        old_session = self.js("return sessionStorage.getItem('vmhost.sessionId');")
        self.js("sessionStorage.clear();")
        # NB: through another page, so that the link loads the page anew (the same path and query with another
        # hash would only be a same-document navigation).
        self.driver.get("about:blank")
        self.driver.get(f"{self.base_url}/?q={link_query}#photo/{photo_id}")
        self.wait(lambda: self.by_testid("photo-view").is_displayed(), "the photo of the link")
        self.wait(lambda: (p := self.photo_state()) is not None and p["photoId"] == photo_id
                  and p["detail"]["status"] == "loaded", "the photo of the link to load")
        if self.js("return sessionStorage.getItem('vmhost.sessionId');") in (old_session, None):
            raise StepFailed("the link did not start a new session")
        self.shot("09-shared-link")
        self.driver.find_element(By.TAG_NAME, "body")
        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        self.wait(lambda: not self.by_testid("photo-view").is_displayed(), "Escape to close the linked photo")
        self.wait_search_settled(link_query)
        self.wait(lambda: self.url() == f"/?q={link_query}#search", "the URL ?q=kittens#search after closing")
        del sunset, photo

        self.step("a photo's tag searches for it")
        first = self.wait_search_settled(link_query)["photos"][0]
        tile = self.driver.find_element(
            By.CSS_SELECTOR, f'[data-testid="photo"][data-photo-id="{first["id"]}"] [data-testid="photo-open"]')
        tile.click()
        self.wait(lambda: (p := self.photo_state()) is not None and p["photoId"] == first["id"]
                  and p["detail"]["status"] == "loaded" and self.count("photo-tag") == len(p["detail"]["value"]["tags"]),
                  "the photo to load its tags")
        buttons = self.all_by_testid("photo-tag-search")
        if buttons:
            tag = buttons[0].get_attribute("data-tag")
            buttons[0].click()
            self.wait(lambda: not self.by_testid("photo-view").is_displayed(), "the photo to close for the tag")
            self.wait_search_settled(tag.strip())
            print(f"[{self.label}]   tag {tag!r} searched", flush=True)
        else:
            ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
            print(f"[{self.label}]   photo without a searchable tag", flush=True)

    def wait_search_settled_any(self):
        self.wait(lambda: (s := self.search_state()) is not None and not s["isSearching"]
                  and s["results"]["value"] is not None, "settled results")
        return self.search_state()["results"]["value"]

    def check_errors(self):
        """Errors in words, next to what failed, each with Try again; the same error twice shows twice."""
        words = self.words
        self.step("a failed search shows its error at the top, in words, with Try again")
        self.control(fault="http500")
        self.js("window.scrollTo(0, 0);")
        self.type_search(words["fjords"])
        self.by_testid("search-go").click()
        self.wait(lambda: self.shown("search-error"), "the search error")
        banner = self.by_testid("search-error")
        message = banner.find_element(By.CSS_SELECTOR, '[data-testid="error-message"]').text
        if message != "Flickr isn’t answering right now." or "Upstream error" in banner.text:
            raise StepFailed(f"the search error reads {banner.text!r}")
        if not banner.find_element(By.CSS_SELECTOR, '[data-testid="error-retry"]').is_displayed():
            raise StepFailed("the search error has no Try again")
        status = self.text_of("search-status")
        if words["fjords"] not in status or "failed" not in status:
            raise StepFailed(f"the status after a failed search reads {status!r}")
        self.wait(lambda: self.js("return document.getElementById('photos').classList.contains('stale');"),
                  "the earlier results dimmed under the failed search")
        self.shot("10-search-error")
        self.axe("a failed search")

        self.step("the same error again after a success still shows its message and Try again")
        self.control()
        self.search_and_settle(words["glaciers"])
        self.wait(lambda: not self.shown("search-error"), "the error gone after a success")
        # NB: the very same failure (same query, same error) as before: the page drew an empty box for it.
        self.control(fault="http500")
        self.type_search(words["fjords"])
        self.by_testid("search-go").click()
        self.wait(lambda: self.shown("search-error") and self.text_of("error-message") == "Flickr isn’t answering right now."
                  and self.by_testid("search-error").find_element(By.CSS_SELECTOR, '[data-testid="error-retry"]')
                  .is_displayed(), "the repeated error with its message and Try again")
        self.control()
        self.by_testid("search-error").find_element(By.CSS_SELECTOR, '[data-testid="error-retry"]').click()
        self.wait_search_settled(words["fjords"])
        self.wait(lambda: not self.shown("search-error"), "Try again to clear the error")

        self.step("a failed page shows its error at the end of the list, with Try again")
        before = self.count("photo")
        self.control(fault="http500")
        for _ in range(60):
            self.scroll_to_bottom()
            if self.shown("photos-error"):
                break
            time.sleep(0.1)
        self.wait(lambda: self.shown("photos-error"), "the load-more error at the end of the list")
        if self.shown("search-error"):
            raise StepFailed("a load-more failure shows at the top")
        below = self.js("const e = document.querySelector('[data-testid=\"photos-error\"]').getBoundingClientRect();"
                        "const ps = document.querySelectorAll('[data-testid=\"photo\"]');"
                        "return e.top >= ps[ps.length - 1].getBoundingClientRect().bottom && e.top < innerHeight;")
        if not below:
            raise StepFailed("the load-more error is not under the last photo, on screen")
        if "Flickr isn’t answering right now." not in self.by_testid("photos-error").text:
            raise StepFailed(f"the load-more error reads {self.by_testid('photos-error').text!r}")
        self.shot("11-load-more-error")
        self.axe("a failed page")
        self.control()
        self.by_testid("photos-error").find_element(By.CSS_SELECTOR, '[data-testid="error-retry"]').click()
        self.wait(lambda: self.count("photo") > before and not self.shown("photos-error"), "Try again to load the page")

        self.step("a search the server refuses (429 rate_limited) says so at the top, with Try again")
        # The page's own fetch answers 429 for search/execute, as the server does once a session's upstream budget
        # is spent (`upstreamCallsPerMinute`).
        self.js(
            "window.realFetch = window.fetch;"
            "window.fetch = (url, init) => String(url).endsWith('/search/execute') ? Promise.resolve(new Response("
            "JSON.stringify({error: {code: 'rate_limited', message: 'too many upstream calls'}}),"
            "{status: 429, headers: {'Content-Type': 'application/json', 'Retry-After': '2'}})) : window.realFetch(url, init);")
        self.js("window.scrollTo(0, 0);")
        self.type_search(words["meadow"])
        self.by_testid("search-go").click()
        self.wait(lambda: self.shown("search-error") and self.text_of("error-message")
                  == "Too many requests at once. Wait a moment, then try again.", "the refusal at the top")
        self.js("window.fetch = window.realFetch;")
        self.by_testid("search-error").find_element(By.CSS_SELECTOR, '[data-testid="error-retry"]').click()
        self.wait_search_settled(words["meadow"])
        self.wait(lambda: not self.shown("search-error"), "Try again to run the search")

        self.step("a photo that fails to load says so in its sheet, with Try again")
        self.js("window.scrollTo(0, 0);")
        self.control(fault="http500")
        tile = self.all_by_testid("photo-open")[0]
        tile.click()
        self.wait(lambda: self.shown("photo-error"), "the error in the photo sheet")
        if "Flickr isn’t answering right now." not in self.by_testid("photo-error").text:
            raise StepFailed(f"the photo error reads {self.by_testid('photo-error').text!r}")
        self.shot("12-photo-error")
        self.axe("a photo that failed to load")
        self.control()
        self.by_testid("photo-error").find_element(By.CSS_SELECTOR, '[data-testid="error-retry"]').click()
        self.wait(lambda: (p := self.photo_state())["detail"]["status"] == "loaded"
                  and p["comments"]["status"] == "loaded" and not self.shown("photo-error"),
                  "Try again to load the photo")
        ActionChains(self.driver).send_keys(Keys.ESCAPE).perform()
        self.wait(lambda: not self.by_testid("photo-view").is_displayed(), "Escape to close the photo")

    def check_cancel_and_empty(self):
        words = self.words
        shown = self.wait_search_settled_any()["searchString"]
        self.step("a new search loading: its query in the status, skeleton cards, earlier results dimmed")
        self.control(latencyMs=4000)
        self.js("window.scrollTo(0, 0);")
        self.type_search(words["forest"])
        self.by_testid("search-go").click()
        self.wait(lambda: self.text_of("search-status") == f"Loading photos for “{words['forest']}”…"
                  and self.shown("photos-skeleton")
                  and self.js("return document.getElementById('photos').classList.contains('stale');"),
                  "the loading status, skeletons and dimmed results")
        self.shot("13-loading")
        self.step("Cancel puts the shown query back and says the search was cancelled")
        self.by_testid("search-cancel").click()
        self.wait(lambda: not self.search_state()["isSearching"]
                  and self.by_testid("search-input").get_attribute("value") == shown
                  and f"Search for “{words['forest']}” cancelled." in self.text_of("search-status")
                  and f"for “{shown}”" in self.text_of("search-status")
                  and not self.shown("photos-skeleton"), "the cancelled status and the query put back")
        self.wait(lambda: self.search_state()["searchText"] == shown, "the server's text put back too")
        self.shot("14-cancelled")
        self.control()

        self.step("a search with no results says so")
        self.control(emptySearches=True)
        self.search_and_settle(words["harbor"])
        self.wait(lambda: self.shown("photos-empty") and self.text_of("photos-empty").startswith(
            f"No photos for “{words['harbor']}”"), "the empty-results screen")
        self.shot("15-empty")
        self.axe("empty results")
        self.control()

    def check_product_errors(self):
        self.step("products: skeleton rows while the first page loads")
        # This session (the shared link's) has not shown its products yet: the screen loads them when shown.
        if self.products_state()["page"] != 0:
            raise StepFailed("the shared link's session already has products")
        self.control(latencyMs=1500)
        self.by_testid("tab-products").click()
        self.wait(lambda: self.shown("products-skeleton") and self.products_state()["isRefreshing"],
                  "skeleton rows while the first page loads")
        self.shot("15b-products-skeleton")
        self.wait(lambda: self.count("product") == 20 and not self.shown("products-skeleton"), "the first page")
        self.control()

        self.step("products: a failed refresh at the top, a failed page at the bottom, each with Try again")
        self.wait(lambda: self.by_testid("panel-products").is_displayed(), "the products screen")
        self.js("window.scrollTo(0, 0);")
        self.control(fault="http500")
        self.by_testid("products-refresh").click()
        self.wait(lambda: self.shown("products-error"), "the refresh error at the top")
        if "The product service isn’t answering right now." not in self.by_testid("products-error").text:
            raise StepFailed(f"the products error reads {self.by_testid('products-error').text!r}")
        self.control()
        self.by_testid("products-error").find_element(By.CSS_SELECTOR, '[data-testid="error-retry"]').click()
        self.wait(lambda: not self.shown("products-error") and not self.products_state()["isRefreshing"]
                  and self.count("product") == 20, "Try again to refresh")
        self.control(fault="http500")
        for _ in range(60):
            self.scroll_to_bottom()
            if self.shown("products-more-error"):
                break
            time.sleep(0.1)
        self.wait(lambda: self.shown("products-more-error") and not self.shown("products-error"),
                  "the load-more error at the bottom only")
        self.shot("16-products-more-error")
        self.axe("failed products")
        self.control()
        self.by_testid("products-more-error").find_element(By.CSS_SELECTOR, '[data-testid="error-retry"]').click()
        self.wait(lambda: self.count("product") > 20 and not self.shown("products-more-error"),
                  "Try again to load the next page")

        self.step("dark colour scheme: contrast on both screens")
        self.driver.execute_cdp_cmd(
            "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        try:
            self.wait(lambda: self.js("return matchMedia('(prefers-color-scheme: dark)').matches;"), "dark mode")
            self.axe("the products, dark")
            self.shot("17-products-dark")
            self.by_testid("tab-search").click()
            self.wait_search_settled_any()
            self.axe("the search, dark")
        finally:
            self.driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})

    def check_patch_apply(self):
        """Runs RFC 6902 examples through the page's own apply function."""
        cases = [
            ({"foo": "bar"}, [{"op": "add", "path": "/baz", "value": "qux"}], {"foo": "bar", "baz": "qux"}),
            ({"foo": ["bar", "baz"]}, [{"op": "add", "path": "/foo/1", "value": "qux"}],
             {"foo": ["bar", "qux", "baz"]}),
            ({"foo": ["bar"]}, [{"op": "add", "path": "/foo/-", "value": ["abc"]}], {"foo": ["bar", ["abc"]]}),
            ({"baz": "qux", "foo": "bar"}, [{"op": "remove", "path": "/baz"}], {"foo": "bar"}),
            ({"foo": ["bar", "qux", "baz"]}, [{"op": "remove", "path": "/foo/1"}], {"foo": ["bar", "baz"]}),
            ({"baz": "qux"}, [{"op": "replace", "path": "/baz", "value": "boo"}], {"baz": "boo"}),
            ({"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}},
             [{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}],
             {"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}),
            ({"foo": ["all", "grass", "cows", "eat"]}, [{"op": "move", "from": "/foo/1", "path": "/foo/3"}],
             {"foo": ["all", "cows", "eat", "grass"]}),
            ({"a": {"b": [1]}}, [{"op": "copy", "from": "/a/b", "path": "/c"}, {"op": "add", "path": "/c/-",
                                                                                "value": 2}],
             {"a": {"b": [1]}, "c": [1, 2]}),
            ({"/": 1, "~": 2}, [{"op": "replace", "path": "/~1", "value": 3}, {"op": "remove", "path": "/~0"}],
             {"/": 3}),
            ({"x": 1}, [{"op": "replace", "path": "", "value": [1]}], [1]),
            ({"baz": "qux", "foo": ["a", 2, "c"]},
             [{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}],
             {"baz": "qux", "foo": ["a", 2, "c"]}),
        ]
        failures = [
            ({"baz": "qux"}, [{"op": "test", "path": "/baz", "value": "bar"}]),
            ({"foo": "bar"}, [{"op": "add", "path": "/baz/bat", "value": "qux"}]),
            ({"foo": [1]}, [{"op": "remove", "path": "/foo/1"}]),
            ({"foo": [1]}, [{"op": "add", "path": "/foo/01", "value": 2}]),
        ]
        script = """
            const [cases, failures] = arguments;
            const results = cases.map(([doc, patch]) => window.vmhost.applyPatch(doc, patch));
            const rejected = failures.map(([doc, patch]) => {
                try { window.vmhost.applyPatch(doc, patch); return 'accepted'; }
                catch (e) { return e instanceof window.vmhost.PatchError ? 'rejected' : 'threw ' + e; }
            });
            return [results, rejected];
        """
        results, rejected = self.js(script, cases, failures)
        problems = [(patch, got) for (_, patch, expected), got in zip(cases, results) if got != expected]
        problems += [(patch, outcome) for (_, patch), outcome in zip(failures, rejected) if outcome != "rejected"]
        if problems:
            raise StepFailed(f"JSON Patch apply: {problems}")

    def pull_down(self, x, start_y, distance):
        """A one-finger drag down, as the touch events of a phone."""
        def touch(kind, y):
            points = [] if kind == "touchEnd" else [{"x": x, "y": y, "id": 1}]
            self.driver.execute_cdp_cmd("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        touch("touchStart", start_y)
        for step in range(1, 11):
            touch("touchMove", start_y + distance * step / 10)
        self.wait(lambda: "armed" in self.by_testid("pull-indicator").get_attribute("class"),
                  "the pull indicator to arm")
        self.shot("07b-pull")
        touch("touchEnd", start_y + distance)

    def close(self):
        try:
            self.driver.quit()
        except Exception:  # noqa: BLE001 - best effort
            pass


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_port(port, process, what):
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            if process.poll() is not None:
                raise StepFailed(f"{what} exited at start") from None
            time.sleep(0.05)
    raise StepFailed(f"{what} did not start listening on {port}")


class Server:
    """A vmhost of the restart scenario on a fixed port, using the main run's fake upstream (which keeps its port
    and its pictures across the restarts), with DummyJSON products; optionally durable in Redis."""

    def __init__(self, binary, fake_url, redis_url=None, extra=()):
        self.binary, self.fake_url, self.redis_url, self.extra = binary, fake_url, redis_url, list(extra)
        self.port = free_port()
        self.process = None
        self.log = tempfile.NamedTemporaryFile(prefix="vmhost-restart-", suffix=".log", delete=False)

    def start(self):
        command = [self.binary, "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning",
                   "--flickr-url", self.fake_url + "/services/rest/", "--products-url", self.fake_url + "/dummyjson",
                   "--products-format", "dummyjson"]
        if self.redis_url:
            command += ["--redis-url", self.redis_url]
        command += self.extra
        self.process = subprocess.Popen(command, stdout=self.log, stderr=self.log)
        wait_port(self.port, self.process, "vmhost")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def close(self):
        self.stop()
        self.log.close()
        os.unlink(self.log.name)


class Redis:
    """A throwaway redis-server on a free port."""

    def __init__(self):
        self.port = free_port()
        self.directory = tempfile.mkdtemp(prefix="vmhost-redis-")
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.directory], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_port(self.port, self.process, "redis-server")
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def close(self):
        self.process.terminate()
        self.process.wait(timeout=10)


def restart_scenario(scenario, server, durable):
    """The page stays open while its server is stopped and started again: it says it is offline, keeps what is
    typed, and after the restart says "Reconnected" and shows what it showed (a new session without Redis, with
    the query, the photo and the text replayed into it; the same session with Redis)."""
    s = scenario
    base = f"http://127.0.0.1:{server.port}"
    s.base_url = base
    query, typed = "lighthouse", "harbor seals"

    s.step("a link with ?q= opens with its results (DummyJSON products in US dollars)")
    s.driver.get(f"{base}/?q={query}#products")
    s.wait(lambda: s.count("product") > 0, "the DummyJSON products")
    price = s.by_testid("product-price")
    if price.get_attribute("data-currency") != "USD" or "$" not in price.text or "USD" not in price.text:
        raise StepFailed(f"a DummyJSON price without its currency: {price.text!r}")
    s.by_testid("tab-search").click()
    value = s.wait_search_settled(query)
    s.wait(lambda: s.url() == f"/?q={query}#search", "the URL of the search screen")
    photo = value["photos"][0]
    tile = s.driver.find_element(
        By.CSS_SELECTOR, f'[data-testid="photo"][data-photo-id="{photo["id"]}"] [data-testid="photo-open"]')
    tile.click()
    s.wait(lambda: (p := s.photo_state()) is not None and p["photoId"] == photo["id"]
           and p["detail"]["status"] == "loaded", "the photo to open")
    session = s.js("return sessionStorage.getItem('vmhost.sessionId');")

    s.step("the server stops: the page says so plainly")
    server.stop()
    s.wait(lambda: s.by_testid("notice").get_attribute("data-state") == "offline" and s.on_top("notice")
           and "can’t be reached" in s.text_of("notice"), "the offline notice, over the open photo")
    s.shot("20-offline-photo")
    s.axe("the offline notice over the photo")

    s.step("the server starts again: Reconnected, the photo and the results are back")
    server.start()
    expected = "Reconnected." if durable else "Reconnected. The server had restarted, so your results were reloaded."
    s.wait(lambda: s.on_top("notice") and s.text_of("notice") == expected, f"the notice {expected!r}", timeout=30)
    s.wait(lambda: (p := s.photo_state()) is not None and p["photoId"] == photo["id"]
           and p["detail"]["status"] == "loaded" and s.by_testid("photo-view").is_displayed(),
           "the photo open again on the server")
    new_session = s.js("return sessionStorage.getItem('vmhost.sessionId');")
    if (new_session == session) != durable:
        raise StepFailed(f"session {'replaced' if durable else 'kept'} after the restart (durable={durable})")
    ActionChains(s.driver).send_keys(Keys.ESCAPE).perform()
    s.wait(lambda: not s.by_testid("photo-view").is_displayed(), "Escape to close the photo")
    s.wait_search_settled(query)
    s.wait(lambda: query in [b.get_attribute("data-search") for b in s.all_by_testid("recent-search")],
           "the recent search still shown")
    s.wait(lambda: s.js("return document.querySelectorAll("
                        "'[data-testid=\"photo-favorites\"][data-loaded=\"true\"]').length > 0;"),
           "the counts of the photos in view after the restart")
    s.shot("21-reconnected")
    s.axe("the reconnected notice")

    s.step("typing while the server is down: the text is kept, and searched once it is back")
    server.stop()
    s.wait(lambda: s.by_testid("notice").get_attribute("data-state") == "offline", "the offline notice again")
    s.type_search(typed)
    time.sleep(1)
    if s.by_testid("search-input").get_attribute("value") != typed or not s.by_testid("search-go").is_enabled():
        raise StepFailed("the text typed offline was not kept (or Go is disabled)")
    status = s.text_of("search-status")
    if status != f"Offline: the search for “{typed}” runs when the server is back.":
        raise StepFailed(f"the status while offline reads {status!r}")
    s.shot("22-typed-offline")
    server.start()
    s.wait(lambda: s.shown("notice") and s.text_of("notice").startswith("Reconnected"), "Reconnected", timeout=30)
    s.wait_search_settled(typed)
    s.wait(lambda: s.url() == "/?q=harbor%20seals#search" and s.by_testid("search-input").get_attribute("value") == typed,
           "the typed query in the box and the URL")
    s.shot("23-typed-searched")

    s.step("a restart on the products screen: the products come back")
    s.by_testid("tab-products").click()
    s.wait(lambda: s.count("product") > 0 and not s.products_state()["isRefreshing"], "the products")
    server.stop()
    s.wait(lambda: s.by_testid("notice").get_attribute("data-state") == "offline", "the offline notice")
    server.start()
    s.wait(lambda: s.on_top("notice") and s.text_of("notice") == expected, f"the notice {expected!r}", timeout=30)
    s.wait(lambda: (p := s.products_state()) is not None and len(p["items"]) > 0 and s.count("product") > 0
           and s.url() == "/?q=harbor%20seals#products", "the products screen with its products")
    s.shot("24-products-reconnected")


def budget_scenario(scenario, server):
    """A session out of its upstream budget (`--upstream-calls-per-minute 2`): the automatic search that does not
    run, and a search the server refuses (429 rate_limited), each say so at the top in plain words."""
    s = scenario
    base = f"http://127.0.0.1:{server.port}"
    s.step("two searches spend the budget")
    s.driver.get(f"{base}/?q=lighthouse")
    s.wait_search_settled("lighthouse")
    s.type_search("harbor seals")
    s.wait_search_settled("harbor seals")
    s.step("the automatic search out of budget says so")
    s.type_search("harbor lights")
    s.wait(lambda: s.shown("search-error") and s.text_of("error-message")
           == "That was a lot of searching in a short time. Wait a moment, then search again."
           and s.by_testid("search-error").find_element(By.CSS_SELECTOR, '[data-testid="error-retry"]').is_displayed(),
           "the budget error of the automatic search")
    s.shot("30-budget-auto")
    s.step("a search the server refuses says so")
    s.by_testid("search-go").click()
    s.wait(lambda: s.shown("search-error") and s.text_of("error-message")
           == "Too many requests at once. Wait a moment, then try again.", "the 429 of search/execute")
    s.shot("31-budget-refused")
    s.axe("a refused search")


def check_assets(base_url, tls_context=None):
    """`/`, `/app.css` and `/app.js`: content types, cache headers, ETag and `304` revalidation."""

    def get(path, etag=None):
        request = urllib.request.Request(base_url + path, headers={"If-None-Match": etag} if etag else {})
        try:
            with urllib.request.urlopen(request, timeout=5, context=tls_context) as response:
                return response.status, response.headers, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.headers, error.read()

    status, headers, body = get("/")
    page = body.decode()
    if status != 200 or headers["Content-Type"] != "text/html; charset=utf-8" or headers["Cache-Control"] != "no-cache":
        raise StepFailed(f"GET / answered {status} {dict(headers)}")
    policy = headers["Content-Security-Policy"] or ""
    for directive in ("script-src 'self'", "style-src 'self'", "frame-ancestors 'none'"):
        if directive not in policy or "unsafe" in policy:
            raise StepFailed(f"GET / Content-Security-Policy lacks {directive!r} (or allows unsafe-*): {policy!r}")
    for path, content_type in (("/app.css", "text/css"), ("/app.js", "text/javascript")):
        status, headers, _ = get(path)
        etag = headers["ETag"]
        if status != 200 or not headers["Content-Type"].startswith(content_type):
            raise StepFailed(f"GET {path} answered {status} {headers['Content-Type']}")
        if "max-age=3600" not in headers["Cache-Control"] or f'{path}?v={etag.strip(chr(34))}"' not in page:
            raise StepFailed(f"{path} is not cacheable or not referenced by its version: {dict(headers)}")
        status, _, body = get(path, etag)
        if status != 304 or body:
            raise StepFailed(f"GET {path} with If-None-Match answered {status}, {len(body)} bytes")
    status, headers, _ = get("/")
    status, _, _ = get("/", headers["ETag"])
    if status != 304:
        raise StepFailed(f"GET / with If-None-Match answered {status}")


def width_half(driver):
    return driver.execute_script("return Math.round(window.innerWidth / 2);")


def main():
    parser = argparse.ArgumentParser(description="Headless-Chromium test of vmhost's web client.")
    parser.add_argument("--h2", action="store_true",
                        help="BASE_URL is HAProxy's TLS + HTTP/2 edge (self-signed): desktop size only, h2 checks")
    parser.add_argument("--fake-url", help="the embedded fake upstream of BASE_URL's vmhost (fault injection)")
    parser.add_argument("--binary", help="the vmhost binary, for the restart scenarios")
    parser.add_argument("base_url", metavar="BASE_URL")
    parser.add_argument("screenshots", metavar="SCREENSHOT_DIR")
    arguments = parser.parse_args()
    base_url, screenshots = arguments.base_url.rstrip("/"), arguments.screenshots
    tls_context = None
    if arguments.h2:
        if not base_url.startswith("https://"):
            parser.error("--h2 needs an https:// BASE_URL")
        # The cluster's self-signed certificate, on 127.0.0.1: urllib (HTTP/1.1 over TLS) does not verify it.
        tls_context = ssl.create_default_context()
        tls_context.check_hostname = False
        tls_context.verify_mode = ssl.CERT_NONE
    with urllib.request.urlopen(base_url + "/healthz", timeout=5, context=tls_context) as response:
        if response.status != 200:
            print("vmhost is not healthy", file=sys.stderr)
            return 1
    print("[http] assets and caching headers", flush=True)
    try:
        check_assets(base_url, tls_context)
    except StepFailed as error:
        print(f"FAILED [http] step 'assets and caching headers': {error}", file=sys.stderr)
        return 1
    # Through the proxy the scenario runs at the desktop size only: the phone size exercises the same requests
    # (and the touch gestures, which do not depend on the transport) and would double the pass's time.
    sizes = (("h2-desktop", 1280, 900, False),) if arguments.h2 else (
        ("desktop", 1280, 900, False), ("phone", 390, 844, True))
    for label, width, height, touch in sizes:
        started = time.monotonic()
        scenario = None
        try:
            scenario = Scenario(base_url, screenshots, label, width, height, touch, h2=arguments.h2,
                                fake_url=arguments.fake_url)
            scenario.run()
        except StepFailed as error:
            print(f"FAILED [{label}] step '{scenario.step_name}': {error}", file=sys.stderr)
            if scenario:
                scenario.shot("failure")
            return 1
        except Exception:  # noqa: BLE001 - report which step broke, whatever broke it
            step = scenario.step_name if scenario else "start the browser"
            print(f"FAILED [{label}] step '{step}' with an exception:", file=sys.stderr)
            traceback.print_exc()
            if scenario:
                try:
                    scenario.shot("failure")
                except Exception:  # noqa: BLE001
                    pass
            return 1
        finally:
            if scenario:
                scenario.close()
        print(f"[{label}] passed in {time.monotonic() - started:.1f}s", flush=True)
    if arguments.binary and arguments.fake_url:
        # The restart scenarios: without Redis at both sizes, with Redis at the desktop size.
        for label, width, height, touch, durable in (
                ("restart-desktop", 1280, 900, False, False), ("restart-phone", 390, 844, True, False),
                ("restart-redis-desktop", 1280, 900, False, True)):
            started = time.monotonic()
            scenario = server = redis = None
            try:
                redis = Redis() if durable else None
                server = Server(arguments.binary, arguments.fake_url, redis.url if redis else None)
                server.start()
                scenario = Scenario(f"http://127.0.0.1:{server.port}", screenshots, label, width, height, touch)
                restart_scenario(scenario, server, durable)
            except Exception as error:  # noqa: BLE001 - report which step broke, whatever broke it
                step = scenario.step_name if scenario else "start"
                print(f"FAILED [{label}] step '{step}': {error}", file=sys.stderr)
                if not isinstance(error, StepFailed):
                    traceback.print_exc()
                if scenario:
                    try:
                        scenario.shot("failure")
                    except Exception:  # noqa: BLE001
                        pass
                if server:
                    server.log.flush()
                    with open(server.log.name) as log:
                        print(log.read()[-3000:], file=sys.stderr)
                return 1
            finally:
                if scenario:
                    scenario.close()
                if server:
                    server.close()
                if redis:
                    redis.close()
            print(f"[{label}] passed in {time.monotonic() - started:.1f}s", flush=True)
        label, started, scenario, server = "budget-desktop", time.monotonic(), None, None
        try:
            server = Server(arguments.binary, arguments.fake_url, extra=["--upstream-calls-per-minute", "2"])
            server.start()
            scenario = Scenario(f"http://127.0.0.1:{server.port}", screenshots, label, 1280, 900)
            budget_scenario(scenario, server)
        except Exception as error:  # noqa: BLE001 - report which step broke, whatever broke it
            print(f"FAILED [{label}] step '{scenario.step_name if scenario else 'start'}': {error}", file=sys.stderr)
            if not isinstance(error, StepFailed):
                traceback.print_exc()
            if scenario:
                scenario.shot("failure")
            return 1
        finally:
            if scenario:
                scenario.close()
            if server:
                server.close()
        print(f"[{label}] passed in {time.monotonic() - started:.1f}s", flush=True)
    print("browser test: all steps passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
