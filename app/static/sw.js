/* Hideout's service worker (issue 19), served at /sw.js so that it controls the whole site.

   - Static files: their URLs carry the content's hash (?v=, app/core/static.py), so a stored
     copy with the same hash is the file itself: served from the cache, fetched once. A new
     hash replaces the file's older copy.
   - A campaign's dashboard, map and battle pages: always from the network; the last copy seen
     is kept and shown only when the network fails, marked as a copy so the page shows its
     offline banner (templates/base.html, static/pwa.js). Pages with a flash message, API
     answers, htmx partials and anything but GET are never kept.
   - Saved pages belong to one person: each page names its viewer (a meta tag); a page drawn
     for someone else, or for nobody (after a logout), drops every saved page first, and so does
     any login, logout or registration the worker sees go by. (The logout's
     `Clear-Site-Data: "cache"` empties the browser's HTTP cache; Chromium leaves these caches
     to the worker.) A session can also end elsewhere (a logout on another device, an
     expiry): whenever a page opens, the browser comes back online or the tab is shown again,
     the worker asks /api/v1/me, and a 401 drops every saved page.
   - A page never saved, asked for offline, gets the offline page stored at install. */
"use strict";

// Offline at the table (R12.1): taps kept on the phone are sent by Background Sync too, with the
// battle page's own code (static/table.js); a worker without it still serves pages.
try { importScripts("/static/table.js"); } catch (_e) { /* served without it */ }

const VERSION = "1";
const STATIC = "hideout-static-v" + VERSION;
const PAGES = "hideout-pages-v" + VERSION;
const OFFLINE = "/offline";
const VIEWER_KEY = "/__hideout/viewer";
const SAVED = [/^\/campaigns\/\d+$/, /^\/campaigns\/\d+\/map$/, /^\/campaigns\/\d+\/battles\/\d+$/];
const KINDS = ["dashboard", "map", "battle"];  // of SAVED, in its order (named on the offline page)
const SESSION_CHANGES = new Set(["/login", "/logout", "/register"]);
const ME = "/api/v1/me";
const MAX_ENTRIES = 60;  // pages and their map images; the oldest go first
const UNREACHABLE = new Set([502, 503, 504]);  // a proxy in front of a stopped server
const BANNER = 'id="offline-banner" role="status" hidden';
const VIEWER_TAG = /<meta name="hideout-viewer" content="([^"]*)">/;
const FLASH = /<div class="flash" id="flash">/;
const LANG = /<html lang="([a-z-]+)"/i;
const TITLE = /<title>([^<]*)<\/title>/;

const saved = (path) => SAVED.some((pattern) => pattern.test(path));
// A battle's photos (R12.3): members' only, kept with the saved pages (dropped with them).
const PHOTO = /^\/campaigns\/\d+\/battles\/\d+\/photos\/\d+$/;

// Cache writes run one after another, so a logout's drop never interleaves with a save.
let queue = Promise.resolve();
function serially(task) {
  queue = queue.then(task, task);
  return queue;
}

self.addEventListener("install", (event) => {
  event.waitUntil(storeOfflinePage(null).catch(() => {}).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name.startsWith("hideout-") && name !== STATIC && name !== PAGES) await caches.delete(name);
    }
    if (self.registration.navigationPreload) await self.registration.navigationPreload.enable();
    await self.clients.claim();
  })());
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.method !== "GET") {
    if (SESSION_CHANGES.has(url.pathname)) event.waitUntil(serially(dropPages));
    return;
  }
  if (url.pathname.startsWith("/static/")) {
    event.respondWith(staticFile(event, request, url));
  } else if (request.mode === "navigate") {
    event.respondWith(page(event, request, url));
  } else if ((url.pathname.startsWith("/media/") || PHOTO.test(url.pathname)) && request.referrer && saved(new URL(request.referrer).pathname)) {
    event.respondWith(media(event, request));
  }
});

self.addEventListener("message", (event) => {
  const data = event.data || {};
  if (data.type === "lang") {
    event.waitUntil(storeOfflinePage(data.lang).catch(() => {}));
  } else if (data.type === "session") {
    event.waitUntil(serially(checkSession));
  } else if (data.type === "saved-pages" && event.ports[0]) {
    event.waitUntil(savedPages().then((list) => event.ports[0].postMessage(list)));
  }
});

// --- static files --------------------------------------------------------------------------

async function staticFile(event, request, url) {
  const cache = await caches.open(STATIC);
  if (url.searchParams.has("v")) {
    const hit = await cache.match(request);
    if (hit) return hit;
  }
  try {
    const response = await fetch(request);
    if (response.status === 200 && response.type === "basic") {
      const copy = response.clone();
      event.waitUntil(serially(async () => {
        await cache.delete(request, { ignoreSearch: true });
        await cache.put(request, copy);
      }));
    }
    return response;
  } catch (error) {
    // Offline, a page saved before an upgrade asks for yesterday's hash: today's file will do.
    const older = await cache.match(request, { ignoreSearch: true });
    if (older) return older;
    throw error;
  }
}

async function storeOfflinePage(lang) {
  const cache = await caches.open(STATIC);
  const stored = await cache.match(OFFLINE);
  if (stored && lang && (LANG.exec(await stored.text()) || [])[1] === lang) return;
  const address = lang ? OFFLINE + "?lang=" + encodeURIComponent(lang) : OFFLINE;
  // Without cookies: the page is the same for everyone and must name nobody.
  const response = await fetch(address, { credentials: "omit", cache: "no-store" });
  if (response.status === 200) await cache.put(OFFLINE, response);
}

// --- pages ---------------------------------------------------------------------------------

async function page(event, request, url) {
  let response;
  try {
    response = (await event.preloadResponse) || (await fetch(request));
  } catch (error) {
    return (await savedCopy(url)) || (await caches.match(OFFLINE)) || Response.error();
  }
  if (UNREACHABLE.has(response.status)) {
    const copy = await savedCopy(url);
    if (copy) return copy;
  }
  if (response.status === 304) {
    // Only a request that asked conditionally itself sees a 304; the kept copy is that page.
    const kept = saved(url.pathname) && (await (await caches.open(PAGES)).match(url.href));
    if (kept) return plain(kept);
  }
  const type = response.headers.get("Content-Type") || "";
  if (response.status === 200 && response.type === "basic" && type.startsWith("text/html")) {
    const copy = response.clone();
    event.waitUntil(serially(() => remember(url, copy)));
  }
  return response;
}

async function remember(url, response) {
  const html = await response.text();
  const tag = VIEWER_TAG.exec(html);
  if (!tag) return;  // not one of the app's pages (API docs, an error without the layout)
  const viewer = tag[1];
  let cache = await caches.open(PAGES);
  const known = await cache.match(VIEWER_KEY);
  const current = known ? await known.text() : null;
  if (current !== null && current !== viewer) {
    await dropPages();
    cache = await caches.open(PAGES);
  }
  if (!viewer) return;
  if (current !== viewer) await cache.put(VIEWER_KEY, new Response(viewer));
  if (!saved(url.pathname) || FLASH.test(html)) return;
  const headers = { "Content-Type": "text/html; charset=utf-8", "X-Hideout-Saved": new Date().toISOString() };
  await cache.put(url.href, new Response(html, { status: 200, headers }));
  await trim(cache);
}

async function savedCopy(url) {
  if (!saved(url.pathname)) return null;
  const cache = await caches.open(PAGES);
  const hit = (await cache.match(url.href)) || (await cache.match(url.href, { ignoreSearch: true }));
  if (!hit) return null;
  const when = hit.headers.get("X-Hideout-Saved") || "";
  const html = (await hit.text()).replace(BANNER, `id="offline-banner" role="status" data-state="copy" data-saved="${when}"`);
  return new Response(html, { status: 200, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

function plain(kept) {
  return new Response(kept.body, { status: 200, headers: { "Content-Type": "text/html; charset=utf-8" } });
}

async function dropPages() {
  await caches.delete(PAGES);
}

async function checkSession() {
  const known = await (await caches.open(PAGES)).match(VIEWER_KEY);
  if (!known || !(await known.text())) return;  // nobody's pages are kept
  let response;
  try {
    response = await fetch(ME, { credentials: "same-origin", cache: "no-store", headers: { Accept: "application/json" } });
  } catch (error) {
    return;  // offline: the copies stay until the server can be asked
  }
  if (response.status === 401) await dropPages();
}

async function trim(cache) {
  const keys = (await cache.keys()).filter((key) => !key.url.endsWith(VIEWER_KEY));
  for (const key of keys.slice(0, Math.max(0, keys.length - MAX_ENTRIES))) await cache.delete(key);
}

async function savedPages() {
  const cache = await caches.open(PAGES);
  const list = [];
  for (const key of await cache.keys()) {
    const path = new URL(key.url).pathname;
    const kind = KINDS[SAVED.findIndex((pattern) => pattern.test(path))];
    if (!kind) continue;
    const hit = await cache.match(key);
    const title = (TITLE.exec(await hit.text()) || [])[1] || path;
    list.push({ url: key.url, title, kind, saved: hit.headers.get("X-Hideout-Saved") });
  }
  return list.reverse();  // the newest first
}

// --- map images of saved pages ---------------------------------------------------------------

async function media(event, request) {
  try {
    const response = await fetch(request);
    if (response.status === 200 && response.type === "basic") {
      const copy = response.clone();
      event.waitUntil(serially(async () => {
        const cache = await caches.open(PAGES);
        if (!(await cache.match(VIEWER_KEY))) return;  // nobody's pages are kept
        const headers = { "Content-Type": copy.headers.get("Content-Type") || "application/octet-stream" };
        await cache.put(request, new Response(await copy.blob(), { status: 200, headers }));
        await trim(cache);
      }));
    }
    return response;
  } catch (error) {
    const hit = await (await caches.open(PAGES)).match(request);
    if (hit) return hit;
    throw error;
  }
}
