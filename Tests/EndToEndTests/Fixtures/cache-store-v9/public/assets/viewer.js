/* gallerygen viewer: progressive enhancement over the grid's links to the photo pages.
   A click on a tile shows the photo full screen over the grid, with the photo page's address in
   the address bar (back closes, a shared link opens that page). Only the photo shown and its two
   neighbours are ever loading: a photo flicked past before it arrived has its transfer aborted,
   so the one the visitor stops at never waits behind the ones skipped. A clip plays in its
   place: nothing of it is fetched before it is shown, and its transfer stops when it is left. A
   Live Photo's motion plays over its still while the pointer is on its LIVE button (as the
   photo apps do: not merely on opening it), a finger holds the photo, or the button is pressed. */
(function () {
  "use strict";
  var doc = document;
  /* Right to left (Arabic, Hebrew): the next photo is to the left, so the arrow keys and swipes
     are mirrored. */
  var rtl = (doc.documentElement.getAttribute("dir") || "").toLowerCase() === "rtl";
  var back = rtl ? "ArrowRight" : "ArrowLeft";

  /* A key meant for a video's own controls (seeking, the volume) or a form's. */
  function forControls(event) {
    var target = event.target;
    return !!(target && target.closest && target.closest("video, audio, input, select, textarea"));
  }

  /* On a photo page: the arrow keys follow its previous and next links, Escape its way back. */
  if (doc.body && doc.body.classList.contains("photo-page")) {
    doc.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || event.defaultPrevented) return;
      if (forControls(event)) return;
      var key = event.key === "ArrowLeft" || event.key === "ArrowRight" ? (event.key === back ? "prev" : "next") : event.key;
      var selector = { prev: 'a[rel="prev"]', next: 'a[rel="next"]', Escape: "a.back" }[key];
      var link = selector && doc.querySelector(".photo-nav " + selector);
      if (link) location.href = link.href;
    });
    return;
  }

  var links = Array.prototype.slice.call(doc.querySelectorAll(".gallery a[data-full]"));
  if (!links.length || typeof HTMLDialogElement !== "function" || !window.fetch || !window.AbortController) return;

  /* The rules that keep a grid's last rows hidden while its list arrives (the theme's style.css,
     those of `:not(:has(+ .gallery-end))`) have nothing left to do once the page is parsed, but
     would still be matched against every tile each time the viewer's opening or closing
     restyles the page. */
  function dropArrivalRules() {
    Array.prototype.forEach.call(doc.styleSheets, function (sheet) {
      if (!/assets\/style\.css$/.test(sheet.href || "")) return;
      try {
        var rules = sheet.cssRules;
        for (var i = rules.length - 1; i >= 0; i--) {
          if ((rules[i].selectorText || "").indexOf(":not(:has(+ .gallery-end))") >= 0) sheet.deleteRule(i);
        }
      } catch (error) {}
    });
  }
  if (doc.readyState === "loading") doc.addEventListener("DOMContentLoaded", dropArrivalRules);
  else dropArrivalRules();

  /* A tile out of sight is not laid out (style.css: content-visibility), so the browser's lazy
     loading would start its photo only as the tile is about to show: each is asked for once its
     tile comes within 1,250 pixels, as the browser does for a page laid out whole. The tiles are
     not watched while the viewer hides them (each frame would measure them all). */
  var ahead = null;
  var waiting = links.map(function (link) { return link.closest(".photo") || link; });
  function watch(on) {
    if (!ahead) return;
    if (!on) return ahead.disconnect();
    waiting = waiting.filter(function (tile) { return !!tile.querySelector("img[loading=lazy]"); });
    waiting.forEach(function (tile) { ahead.observe(tile); });
  }
  if (window.IntersectionObserver) {
    ahead = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting) return;
        ahead.unobserve(entry.target);
        var img = entry.target.querySelector("img[loading=lazy]");
        if (img) img.loading = "eager";
      });
    }, { rootMargin: "1250px 0px" });
    watch(true);
  }

  /* Addresses are made absolute now: the address bar will show a photo page in another folder
     (the page's own <base> keeps its other links where they were). */
  var base = location.href;

  function candidates(srcset) {
    return (srcset || "").split(",").map(function (part) {
      var bits = part.trim().split(/\s+/);
      return { url: new URL(bits[0], base).href, width: parseInt(bits[1], 10) || 0 };
    }).filter(function (candidate) { return candidate.width > 0; })
      .sort(function (a, b) { return a.width - b.width; });
  }

  var photos = links.map(function (link) {
    var img = link.querySelector("img");
    var caption = link.parentNode.querySelector("figcaption");
    var sources = Array.prototype.slice.call(link.querySelectorAll("source"));
    return {
      link: link,
      img: img,
      page: link.href,
      /* The tile's caption text, when it has one (`tile_captions:`); the alt text stands in. */
      title: caption && caption.firstChild && caption.firstChild.nodeType === 3 ? caption.firstChild.textContent.trim() : "",
      alt: img.alt,
      aspect: img.width && img.height ? img.width / img.height : 1.5,
      sets: sources.map(function (source) { return candidates(source.getAttribute("srcset")); })
        .concat([candidates(img.getAttribute("srcset"))]),
      style: img.getAttribute("style") || "",
      /* A clip's files, and a Live Photo's motion: `address type height` each. */
      clip: files(link.getAttribute("data-video")),
      motion: files(link.getAttribute("data-motion"))
    };
  });

  function files(list) {
    return list ? list.split(",").map(function (part) {
      var bits = part.trim().split(/\s+/);
      return { url: new URL(bits[0], base).href, type: bits[1], height: parseInt(bits[2], 10) || 0 };
    }) : null;
  }

  /* The format the browser chose for the tile (its current source), else the fallback. */
  function renditions(photo) {
    var current = photo.img.currentSrc;
    var extension = current && current.split(".").pop();
    for (var i = 0; extension && i < photo.sets.length; i++) {
      if (photo.sets[i].length && photo.sets[i][0].url.split(".").pop() === extension) return photo.sets[i];
    }
    return photo.sets[photo.sets.length - 1];
  }

  /* The page's language: the viewer's labels and how it writes numbers (the build's
     #viewer-text; English when a theme has none). */
  var words = {};
  try { words = JSON.parse(doc.getElementById("viewer-text").textContent); } catch (error) { words = {}; }
  function number(value) {
    var text = String(value);
    if (text.length >= 3 + (+words.grouping || 1)) text = text.replace(/\B(?=(\d{3})+$)/g, words.group || ",");
    return words.digits ? text.replace(/\d/g, function (digit) { return words.digits.charAt(+digit); }) : text;
  }

  var dialog = doc.createElement("dialog");
  dialog.className = "viewer";
  dialog.tabIndex = -1;
  dialog.setAttribute("aria-label", words.viewer || "Photo viewer");
  /* One frame holds it all: what goes full screen (a dialog itself may not). */
  dialog.innerHTML = '<div class="frame"><div class="stage"><img alt=""><video controls playsinline preload="none" hidden></video><video class="motion" muted playsinline preload="none" aria-hidden="true" hidden></video></div><div class="said" hidden><h2 class="said-title"></h2><div class="said-body"></div></div>' +
    '<div class="bar">' +
    '<button type="button" class="prev" aria-label="Previous photo">\u2190</button>' +
    '<p class="caption"><a></a> <span class="position"></span></p>' +
    '<button type="button" class="next" aria-label="Next photo">\u2192</button>' +
    '<button type="button" class="info" aria-label="Caption" aria-pressed="true">i</button>' +
    '<button type="button" class="zoom" aria-label="Zoom" aria-pressed="false">\u2295</button>' +
    '<button type="button" class="play" aria-label="Slideshow" aria-pressed="false">\u25B6</button>' +
    '<button type="button" class="live" aria-label="Play the Live Photo" aria-pressed="false" hidden>LIVE</button>' +
    '<button type="button" class="full" aria-label="Full screen" aria-pressed="false"><svg viewBox="0 0 16 16" ' +
    'width="16" height="16" aria-hidden="true"><path d="M1 6V1h5M10 1h5v5M15 10v5h-5M6 15H1v-5" fill="none" ' +
    'stroke="currentColor" stroke-width="2"/></svg></button>' +
    '<button type="button" class="close" aria-label="Close">\u2715</button></div></div>';
  doc.body.appendChild(dialog);
  /* A modal dialog restyles the whole page (made inert) as it opens and closes. Where there are
     popovers the viewer is a dialog raised as one, at the cost of its own elements: it covers the
     window, is modal to assistive technology (aria-modal), and focus leaving it comes back. */
  var raised = typeof dialog.showPopover === "function";
  if (raised) {
    dialog.popover = "manual";
    dialog.setAttribute("aria-modal", "true");
  }
  function raise() {
    if (!raised) return dialog.showModal();
    dialog.showPopover();
    dialog.show();
  }
  doc.addEventListener("focusin", function (event) {
    if (raised && dialog.open && !dialog.contains(event.target)) dialog.focus();
  });
  /* When the page has a pause (or at once, where it cannot say). */
  function idle(task) {
    if (window.requestIdleCallback) requestIdleCallback(task, { timeout: 500 });
    else setTimeout(task, 0);
  }
  /* Styled from nothing the first time it shows: styled and laid out once, unseen, when idle. */
  idle(function () {
    if (dialog.open) return;
    dialog.style.visibility = "hidden";
    dialog.setAttribute("open", "");
    dialog.getBoundingClientRect();
    dialog.removeAttribute("open");
    dialog.style.visibility = "";
  });
  var frame = dialog.querySelector(".frame");
  var stage = dialog.querySelector(".stage");
  var shown = dialog.querySelector(".stage img");
  var player = dialog.querySelector(".stage video");
  var motion = dialog.querySelector(".stage video.motion");
  var liveButton = dialog.querySelector(".live");
  var captionLink = dialog.querySelector(".caption a");
  var saidBox = dialog.querySelector(".said");
  var saidTitle = dialog.querySelector(".said-title");
  var saidBody = dialog.querySelector(".said-body");
  var infoButton = dialog.querySelector(".info");
  var position = dialog.querySelector(".position");
  var previousButton = dialog.querySelector(".prev");
  var nextButton = dialog.querySelector(".next");
  var zoomButton = dialog.querySelector(".zoom");
  var playButton = dialog.querySelector(".play");
  var fullButton = dialog.querySelector(".full");
  [["prev", "previous_photo"], ["next", "next_photo"], ["info", "caption"], ["zoom", "zoom"], ["play", "slideshow"],
    ["full", "full_screen"], ["close", "close"], ["live", "live_photo"]].forEach(function (pair) {
    if (words[pair[1]]) dialog.querySelector("." + pair[0]).setAttribute("aria-label", words[pair[1]]);
  });
  if (rtl) {
    previousButton.textContent = "\u2192";
    nextButton.textContent = "\u2190";
  }

  function reduced() {
    return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  }

  function inView(box) {
    return box.width > 0 && box.bottom > 0 && box.right > 0 && box.top < window.innerHeight && box.left < window.innerWidth;
  }

  /* The transform that puts the shown photo's box (where `place` put it) on `box` (a tile's). */
  function onto(box) {
    var from = placed;
    if (!from || !from.width) return null;
    return "translate(" + (box.left + box.width / 2 - from.left - from.width / 2) + "px, " +
      (box.top + box.height / 2 - from.top - from.height / 2) + "px) scale(" + box.width / from.width + ")";
  }

  /* Opening: the photo grows out of its tile (or fades in when the tile is out of sight); none
     under prefers-reduced-motion. */
  function arrive(index, tile) {
    if (reduced() || !shown.animate || photos[index].clip) return;
    var from = inView(tile) && onto(tile);
    if (from) shown.animate([{ transform: from }, { transform: "none" }], { duration: 250, easing: "ease-out" });
    else shown.animate([{ opacity: 0 }, { opacity: 1 }], { duration: 200 });
  }

  /* The slideshow: a photo every four seconds, stopped by any key, touch or button, and at the
     last photo; there is none under prefers-reduced-motion. */
  var slideshow = null;
  function stopSlideshow() {
    if (!slideshow) return;
    clearInterval(slideshow);
    slideshow = null;
    playButton.setAttribute("aria-pressed", "false");
    playButton.textContent = "\u25B6";
  }
  playButton.hidden = reduced();
  playButton.addEventListener("click", function () {
    if (slideshow) { stopSlideshow(); return; }
    playButton.setAttribute("aria-pressed", "true");
    playButton.textContent = "\u275A\u275A";
    slideshow = setInterval(function () {
      /* A clip plays to its end first. */
      if (current >= 0 && photos[current].clip && player.getAttribute("src") && !player.ended) return;
      if (current < 0 || current >= photos.length - 1) stopSlideshow();
      else move(1);
    }, 4000);
  });

  /* Full screen, where the browser allows it. */
  fullButton.hidden = !(doc.fullscreenEnabled && frame.requestFullscreen);
  fullButton.addEventListener("click", function () {
    if (doc.fullscreenElement) doc.exitFullscreen().catch(function () {});
    else frame.requestFullscreen().catch(function () {});
  });
  doc.addEventListener("fullscreenchange", function () {
    fullButton.setAttribute("aria-pressed", String(doc.fullscreenElement === frame));
    refit();
  });

  var current = -1;
  var pushed = false;
  var loads = {};
  /* What each photo's page says (its caption, when it was taken, its keywords, credit, place,
     camera and download), by index, once read. */
  var said = {};
  var saidLoad = null;

  /* The caption panel: on a wide window beside the photo (its room kept from the first frame,
     so the photo never moves when the text comes), on a narrow one over the foot of the photo,
     once there is more to say than the title the bar shows. The button hides and shows it. */
  var panel = true;
  var wide = window.matchMedia ? window.matchMedia("(min-width: 1000px)") : { matches: true };
  var saidHTML = "";
  function showPanel(index) {
    dialog.classList.toggle("with-panel", panel);
    /* Written only when it changes: a parse and a layout. */
    var html = said[index] || "";
    if (html !== saidHTML) saidBody.innerHTML = saidHTML = html;
    saidBox.hidden = !panel || (!wide.matches && !said[index]);
  }
  if (wide.addEventListener) {
    wide.addEventListener("change", function () {
      if (current < 0) return;
      showPanel(current);
      refit();
    });
  }
  infoButton.addEventListener("click", function () {
    panel = !panel;
    infoButton.setAttribute("aria-pressed", String(panel));
    if (current < 0) return;
    showPanel(current);
    refit();
  });

  /* The caption comes from the photo's own page, read once the sharp photo is in and never
     while flicking: the page's text is ours, made by the build, as safe as this page. */
  function tell(index) {
    showPanel(index);
    if (said[index] !== undefined || !window.DOMParser) return;
    if (saidLoad) saidLoad.abort();
    var controller = saidLoad = new AbortController();
    fetch(photos[index].page, { signal: controller.signal, priority: "low" })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.text();
      })
      .then(function (text) {
        var page = new DOMParser().parseFromString(text, "text/html");
        said[index] = [".caption", ".taken", ".keywords", ".credit", ".place", ".camera", ".download"].map(function (part) {
          var node = page.querySelector(".photo-view " + part);
          if (!node) return "";
          /* Its links are relative to the photo's page, not to this one. */
          Array.prototype.forEach.call(node.querySelectorAll("[href], [src]"), function (element) {
            ["href", "src"].forEach(function (name) {
              var value = element.getAttribute(name);
              if (value !== null) element.setAttribute(name, new URL(value, photos[index].page).href);
            });
          });
          return node.outerHTML;
        }).join("");
        if (current === index) tell(index);
      }, function () {});
  }

  /* The smallest rendition at least as wide as the photo is drawn, in device pixels. */
  function pick(photo) {
    var list = renditions(photo);
    var box = stage.getBoundingClientRect();
    var drawn = Math.min(box.width, box.height * photo.aspect) * (window.devicePixelRatio || 1);
    for (var i = 0; i < list.length; i++) if (list[i].width >= drawn) return list[i];
    return list[list.length - 1];
  }

  /* The size the photo is drawn at once sharp (the stage's box at the photo's shape, never past
     the rendition's own width), set from the first frame: the tile's small image stands in at
     that size, and the sharp one replaces it in place. */
  var placed = null;
  function place(photo, rendition) {
    var box = stage.getBoundingClientRect();
    var width = Math.min(box.width, box.height * photo.aspect, rendition.width);
    var height = width / photo.aspect;
    shown.style.width = width + "px";
    shown.style.height = height + "px";
    /* Where it is drawn (the stage centres it), known without laying the page out again. */
    placed = { left: box.left + (box.width - width) / 2, top: box.top + (box.height - height) / 2, width: width, height: height };
  }

  /* Zoom: the photo scaled about a point (the keys + and -, the wheel, a double click or tap,
     two fingers, the button) and panned by dragging; past the shown rendition's width a larger
     one is fetched and put in its place. */
  var zoom = { scale: 1, x: 0, y: 0, load: null };

  function applyZoom() {
    var zoomed = zoom.scale > 1;
    shown.style.transform = zoomed ? "translate(" + zoom.x + "px, " + zoom.y + "px) scale(" + zoom.scale + ")" : "";
    stage.classList.toggle("zoomed", zoomed);
    if (zoomed) stopClip(motion);
    zoomButton.setAttribute("aria-pressed", String(zoomed));
    if (zoomed) sharpen();
  }

  /* Scales to `scale` keeping the point (x, y) of the window where it is (the stage's centre
     when none is given); at 1 the photo is back in its place. */
  function zoomTo(scale, x, y) {
    if (current < 0 || photos[current].clip) return;
    var box = stage.getBoundingClientRect();
    var cx = box.left + box.width / 2, cy = box.top + box.height / 2;
    if (x === undefined) { x = cx; y = cy; }
    scale = Math.max(1, Math.min(8, scale));
    var qx = (x - cx - zoom.x) / zoom.scale, qy = (y - cy - zoom.y) / zoom.scale;
    zoom.scale = scale;
    zoom.x = x - cx - scale * qx;
    zoom.y = y - cy - scale * qy;
    pan(0, 0);
  }

  /* Moves the zoomed photo by (dx, dy), never so far that it leaves an edge of the stage bare. */
  function pan(dx, dy) {
    var box = stage.getBoundingClientRect();
    var width = parseFloat(shown.style.width) * zoom.scale, height = parseFloat(shown.style.height) * zoom.scale;
    var mx = Math.max(0, (width - box.width) / 2), my = Math.max(0, (height - box.height) / 2);
    zoom.x = Math.max(-mx, Math.min(mx, zoom.x + dx));
    zoom.y = Math.max(-my, Math.min(my, zoom.y + dy));
    if (zoom.scale === 1) zoom.x = zoom.y = 0;
    applyZoom();
  }

  function unzoom() {
    if (zoom.load) zoom.load.abort();
    zoom.load = null;
    zoom.scale = 1;
    zoom.x = zoom.y = 0;
    applyZoom();
  }

  /* A larger rendition once the zoomed photo is drawn wider than the one shown. */
  function sharpen() {
    var index = current, photo = photos[index];
    var drawn = parseFloat(shown.style.width) * zoom.scale * (window.devicePixelRatio || 1);
    var have = Number(shown.getAttribute("data-width")) || 0;
    var list = renditions(photo), next = null, largest = list[list.length - 1];
    for (var i = 0; i < list.length && !next; i++) if (list[i].width >= drawn) next = list[i];
    /* Past the largest rendition: the original, when the site offers it for download as a JPEG. */
    var original = !next && have >= largest.width && /href="([^"]*\/originals\/[^"]*\.jpg)"/.exec(said[index] || "");
    next = original ? { url: original[1], width: Infinity } : next || largest;
    if (!have || next.width <= have || zoom.load) return;
    var controller = zoom.load = new AbortController();
    fetch(next.url, { signal: controller.signal })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.blob();
      })
      .then(function (blob) {
        if (zoom.load !== controller) return;
        /* Decoded aside, then swapped in: the shown image is never without its pixels, and a
           URL that is never shown is let go. */
        var url = URL.createObjectURL(blob);
        var image = new Image();
        image.onload = image.onerror = function (event) {
          var still = zoom.load === controller && current === index;
          if (zoom.load === controller) zoom.load = null;
          if (!still || event.type !== "load") { URL.revokeObjectURL(url); return; }
          var previous = loads[index];
          shown.src = url;
          shown.setAttribute("data-width", next.width === Infinity ? "original" : next.width);
          if (previous) {
            if (previous.url) URL.revokeObjectURL(previous.url);
            previous.url = url;
            previous.width = next.width;
          }
          if (zoom.scale > 1) sharpen();
        };
        image.src = url;
      }, function () { if (zoom.load === controller) zoom.load = null; });
  }

  zoomButton.addEventListener("click", function () { if (zoom.scale > 1) unzoom(); else zoomTo(2.5); });
  [zoomButton, fullButton, previousButton, nextButton].forEach(function (button) {
    button.addEventListener("click", stopSlideshow);
  });
  stage.addEventListener("wheel", function (event) {
    if (current < 0 || closing || !event.deltaY) return;
    event.preventDefault();
    /* A wheel's notch (100) by a quarter; a trackpad's small steps by as little. */
    var lines = event.deltaMode === 1 ? 33 : 1;
    zoomTo(zoom.scale * Math.exp(-Math.max(-300, Math.min(300, event.deltaY * lines)) / 450), event.clientX, event.clientY);
  }, { passive: false });
  /* A mouse's double click (a finger's two taps are counted on the stage, below). */
  var lastPointer = "";
  shown.addEventListener("dblclick", function (event) {
    if (lastPointer === "touch") return;
    if (zoom.scale > 1) unzoom(); else zoomTo(2.5, event.clientX, event.clientY);
  });

  window.addEventListener("resize", function () {
    refit();
  });

  function load(index, priority) {
    var existing = loads[index];
    if (existing) return existing;
    var photo = photos[index];
    var rendition = pick(photo);
    var controller = new AbortController();
    var entry = { controller: controller, rendition: rendition, url: null, done: false };
    /* Asked for in a task of its own: opening the viewer draws its first frame sooner. */
    entry.promise = new Promise(function (resolve) { setTimeout(resolve, 0); })
      .then(function () { return fetch(rendition.url, { signal: controller.signal, priority: priority }); })
      .then(function (response) {
        if (!response.ok) throw new Error("HTTP " + response.status);
        return response.blob();
      })
      .then(function (blob) { entry.url = URL.createObjectURL(blob); entry.done = true; return entry; },
        function (error) { entry.done = true; entry.failed = error.name !== "AbortError"; return entry; });
    loads[index] = entry;
    return entry;
  }

  /* Keeps the load of the photo shown and its neighbours' finished ones; aborts every other
     transfer (a neighbour still on its way too: it would compete with the photo shown) and lets
     go of what is no longer near. */
  function settle(index) {
    Object.keys(loads).forEach(function (key) {
      var entry = loads[key];
      var distance = Math.abs(Number(key) - index);
      if (distance === 0 || (distance === 1 && entry.done && !entry.failed)) return;
      if (!entry.done) entry.controller.abort();
      if (entry.url) URL.revokeObjectURL(entry.url);
      delete loads[key];
    });
  }

  /* The file of the clip to play: the most compact format the browser plays, at the smallest
     height that is sharp where it is drawn. */
  function clipFile(photo, list) {
    var playable = (list || photo.clip).filter(function (file) {
      return player.canPlayType(file.type + (codecs[file.type] || "")) && failed.indexOf(file.type) < 0;
    });
    if (!playable.length) playable = list || photo.clip;
    var list = playable.filter(function (file) { return file.type === playable[0].type; })
      .sort(function (a, b) { return a.height - b.height; });
    var box = stage.getBoundingClientRect();
    var width = Math.min(box.width, box.height * photo.aspect);
    var needed = Math.min(width, width / photo.aspect) * (window.devicePixelRatio || 1);
    for (var i = 0; i < list.length; i++) if (list[i].height >= needed) return list[i];
    return list[list.length - 1];
  }

  /* What the build makes (H.264 with AAC, VP9 with Opus): a browser that cannot decode one is
     given the other, and a file that fails to play makes its format be passed over from then on. */
  var codecs = { "video/mp4": '; codecs="avc1.640028, mp4a.40.2"', "video/webm": '; codecs="vp9, opus"' };
  var failed = [];
  player.addEventListener("error", function () {
    var photo = photos[current];
    var type = photo && photo.clip && (photo.clip.filter(function (file) { return file.url === player.src; })[0] || {}).type;
    if (!type || failed.indexOf(type) >= 0) return;
    failed.push(type);
    var next = clipFile(photo);
    if (next.type !== type) { player.src = next.url; var playing = player.play(); if (playing && playing.catch) playing.catch(function () {}); }
  });

  /* Stops a clip or a motion and its transfer (a video's download ends only when its source goes). */
  function stopClip(video) {
    video = video || player;
    if (video === motion) {
      motion.hidden = true;
      liveButton.setAttribute("aria-pressed", "false");
    }
    if (!video.getAttribute("src")) return;
    video.pause();
    video.removeAttribute("src");
    video.load();
  }

  /* A Live Photo's motion over its still, at the still's size, silent; once over, the still again. */
  function playMotion() {
    var photo = photos[current];
    if (current < 0 || !photo || !photo.motion || zoom.scale > 1 || !motion.hidden) return;
    motion.style.width = shown.style.width;
    motion.style.height = shown.style.height;
    motion.src = clipFile(photo, photo.motion).url;
    motion.hidden = false;
    liveButton.setAttribute("aria-pressed", "true");
    var playing = motion.play();
    if (playing && playing.catch) playing.catch(function () {});
  }
  motion.addEventListener("ended", function () { stopClip(motion); });
  /* A click (or Enter, or Space) plays it from its start: a pointer on the button already plays it. */
  liveButton.addEventListener("click", function () {
    stopClip(motion);
    playMotion();
  });
  liveButton.addEventListener("mouseenter", playMotion);
  liveButton.addEventListener("mouseleave", function () { stopClip(motion); });
  /* A finger held still on the photo plays it; lifted (anywhere), or moved, the still again. */
  var hold = null, held = null;
  stage.addEventListener("pointerdown", function (event) {
    if (event.pointerType === "mouse") return;
    held = { x: event.clientX, y: event.clientY };
    hold = setTimeout(playMotion, 300);
  });
  stage.addEventListener("pointermove", function (event) {
    if (held && Math.hypot(event.clientX - held.x, event.clientY - held.y) > 10) clearTimeout(hold);
  });
  ["pointerup", "pointercancel"].forEach(function (name) {
    window.addEventListener(name, function (event) {
      clearTimeout(hold);
      held = null;
      if (event.pointerType !== "mouse") stopClip(motion);
    });
  });

  /* The photo or clip shown, fitted again to the stage (a new window size, the panel shown). */
  function refit() {
    if (current < 0) return;
    if (photos[current].clip) fitClip(photos[current]);
    else if (loads[current]) place(photos[current], loads[current].rendition);
  }

  function fitClip(photo) {
    var box = stage.getBoundingClientRect();
    var width = Math.min(box.width, box.height * photo.aspect);
    player.style.width = width + "px";
    player.style.height = width / photo.aspect + "px";
  }

  function showClip(index) {
    var photo = photos[index];
    fitClip(photo);
    player.poster = photo.img.currentSrc || "";
    player.setAttribute("aria-label", photo.alt);
    player.src = clipFile(photo).url;
    player.hidden = false;
    shown.hidden = true;
    var playing = player.play();
    if (playing && playing.catch) playing.catch(function () {});
  }

  function show(index) {
    var photo = photos[index];
    current = index;
    settle(index);
    unzoom();
    stopClip();
    stopClip(motion);
    player.hidden = true;
    shown.hidden = false;
    zoomButton.disabled = !!photo.clip;
    liveButton.hidden = !photo.motion;
    shown.className = "";
    shown.setAttribute("style", photo.style);
    shown.alt = photo.alt;
    shown.removeAttribute("data-width");
    shown.onload = null;
    /* The tile's own image, already here, stands in until the sharp one arrives. */
    if (photo.img.complete && photo.img.currentSrc) shown.src = photo.img.currentSrc;
    else shown.removeAttribute("src");
    /* The panel first: the stage's room, and so the rendition picked, depend on it. */
    saidTitle.textContent = photo.title || photo.alt;
    showPanel(index);
    captionLink.textContent = photo.title || photo.alt;
    captionLink.href = photo.page;
    position.textContent = (words.position || "{number} of {count}").replace("{number}", number(index + 1))
      .replace("{count}", number(photos.length));
    previousButton.disabled = index === 0;
    nextButton.disabled = index === photos.length - 1;
    /* A clip: its poster is the tile's image; only the video is fetched, then the neighbours. */
    if (photo.clip) {
      showClip(index);
      tell(index);
      if (index + 1 < photos.length) load(index + 1, "low");
      if (index > 0) load(index - 1, "low");
      return;
    }
    /* Placed before the size is set: the stage is read again clean. */
    var entry = load(index, "high");
    place(photo, entry.rendition);
    shown.width = entry.rendition.width;
    shown.height = Math.round(entry.rendition.width / photo.aspect);
    entry.promise.then(function (result) {
      if (current !== index) return;
      if (result.url) {
        shown.onload = function () {
          if (current !== index) return;
          shown.onload = null;
          shown.className = "sharp";
          /* A neighbour kept from an earlier zoom holds a larger image than its rendition. */
          shown.setAttribute("data-width", result.width === Infinity ? "original" : result.width || result.rendition.width);
          idle(function () { if (current === index) tell(index); });
          if (zoom.scale > 1) sharpen();
        };
        shown.src = result.url;
      }
      /* Then the neighbours, in a pause, so that they never compete with the photo looked at. */
      idle(function () {
        if (current !== index) return;
        if (index + 1 < photos.length) load(index + 1, "low");
        if (index > 0) load(index - 1, "low");
      });
    });
  }

  function open(index) {
    /* Reopened while it closes (back, then forward): the closing is called off. */
    if (closing && closeAnimation) {
      closeAnimation.onfinish = closeAnimation.oncancel = null;
      closeAnimation.cancel();
      closeAnimation = null;
      closing = false;
    }
    var opening = !dialog.open;
    /* The tile's box is read while the page's layout is still clean: once the dialog is up,
       reading it would lay the page out a second time in the same frame. */
    var tile = opening && photos[index].img.getBoundingClientRect();
    if (opening) {
      watch(false);
      raise();
      dialog.focus();
    }
    show(index);
    if (opening) arrive(index, tile);
  }

  function move(step) {
    var index = current + step;
    if (closing || current < 0 || index < 0 || index >= photos.length) return;
    show(index);
    history.replaceState({ gallerygenViewer: index }, "", photos[index].page);
  }

  /* Closing: the photo shrinks back into its tile, or fades when the tile is out of sight. */
  var closing = false, closeAnimation = null;
  function dismiss() {
    if (!dialog.open || closing) return;
    var index = current;
    stopSlideshow();
    unzoom();
    if (doc.fullscreenElement) doc.exitFullscreen().catch(function () {});
    function finish() {
      closing = false;
      closeAnimation = null;
      if (current !== index) return;
      current = -1;
      settle(-Infinity);
      stopClip();
      stopClip(motion);
      shown.removeAttribute("src");
      if (raised) dialog.hidePopover();
      dialog.close();
      watch(true);
      if (index >= 0) photos[index].link.focus();
    }
    if (index < 0 || reduced() || !shown.animate || !shown.getAttribute("src") || photos[index].clip) return finish();
    var tile = photos[index].img.getBoundingClientRect();
    var to = inView(tile) && onto(tile);
    closing = true;
    var animation = closeAnimation = to
      ? shown.animate([{ transform: "none" }, { transform: to }], { duration: 200, easing: "ease-in" })
      : shown.animate([{ opacity: 1 }, { opacity: 0 }], { duration: 150 });
    animation.onfinish = finish;
    animation.oncancel = finish;
  }

  var leaving = false;
  function close() {
    if (pushed) {
      pushed = false;
      /* Closed now, not on popstate (a round trip); a tile's click meanwhile is its link's. */
      leaving = true;
      dismiss();
      history.back();
    } else {
      var index = current;
      dismiss();
      history.replaceState(null, "", base.split("#")[0] + (index >= 0 ? "#" + photos[index].link.parentNode.parentNode.id : ""));
    }
  }

  links.forEach(function (link, index) {
    link.addEventListener("click", function (event) {
      if (leaving || event.button !== 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      history.pushState({ gallerygenViewer: index }, "", photos[index].page);
      pushed = true;
      open(index);
    });
  });

  window.addEventListener("popstate", function (event) {
    var state = event.state;
    leaving = false;
    if (state && typeof state.gallerygenViewer === "number" && photos[state.gallerygenViewer]) {
      pushed = true;
      open(state.gallerygenViewer);
    } else {
      pushed = false;
      dismiss();
    }
  });

  dialog.addEventListener("cancel", function (event) { event.preventDefault(); close(); });
  dialog.querySelector(".close").addEventListener("click", close);
  previousButton.addEventListener("click", function () { move(-1); });
  nextButton.addEventListener("click", function () { move(1); });
  /* On the document: the keys work wherever focus is while the viewer is open. */
  doc.addEventListener("keydown", function (event) {
    if (!dialog.open || closing || event.altKey || event.ctrlKey || event.metaKey) return;
    /* To a raised dialog Escape is no close request. */
    if (event.key === "Escape" && raised) {
      event.preventDefault();
      return close();
    }
    /* Enter or Space on a button is that button's click (the slideshow's own included). */
    if ((event.key === "Enter" || event.key === " ") && event.target && event.target.tagName === "BUTTON") return;
    if (forControls(event)) return;
    stopSlideshow();
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      event.preventDefault();
      move(event.key === back ? -1 : 1);
    }
    else if (event.key === "Home") { event.preventDefault(); move(-current); }
    else if (event.key === "End") { event.preventDefault(); move(photos.length - 1 - current); }
    else if (event.key === "+" || event.key === "=") { event.preventDefault(); zoomTo(zoom.scale * 1.5); }
    else if (event.key === "-") { event.preventDefault(); zoomTo(zoom.scale / 1.5); }
  });

  /* Pointers on the stage: one swipes (a horizontal flick of 40 pixels or more, more sideways
     than up or down) or, zoomed, pans; two pinch; two taps in a row zoom. */
  var pointers = {};
  var start = null, pinch = null, lastTap = null;
  function spread() {
    var points = Object.keys(pointers).map(function (id) { return pointers[id]; });
    return { distance: Math.hypot(points[0].x - points[1].x, points[0].y - points[1].y),
      x: (points[0].x + points[1].x) / 2, y: (points[0].y + points[1].y) / 2 };
  }
  shown.draggable = false;
  stage.addEventListener("pointerdown", function (event) {
    if (closing) return;
    stopSlideshow();
    /* A clip's own controls (its seek bar) take the drags and taps made on it. */
    if (event.target === player) return;
    lastPointer = event.pointerType;
    /* A gesture starts with its first finger: one lifted outside the stage is not counted on. */
    if (event.isPrimary) pointers = {};
    pointers[event.pointerId] = { x: event.clientX, y: event.clientY };
    var count = Object.keys(pointers).length;
    if (count === 2) { start = null; pinch = { from: spread().distance, scale: zoom.scale }; }
    else if (count === 1) start = { x: event.clientX, y: event.clientY, lastX: event.clientX, lastY: event.clientY };
  });
  stage.addEventListener("pointermove", function (event) {
    if (!pointers[event.pointerId]) return;
    /* A mouse released outside the stage: no button down any more. */
    if (event.pointerType === "mouse" && !event.buttons) { lift(event); start = null; return; }
    pointers[event.pointerId] = { x: event.clientX, y: event.clientY };
    if (pinch && Object.keys(pointers).length === 2) {
      var now = spread();
      zoomTo(pinch.scale * now.distance / Math.max(1, pinch.from), now.x, now.y);
    } else if (start && zoom.scale > 1) {
      pan(event.clientX - start.lastX, event.clientY - start.lastY);
      start.lastX = event.clientX;
      start.lastY = event.clientY;
    }
  });
  function lift(event) {
    delete pointers[event.pointerId];
    var count = Object.keys(pointers).length;
    if (count < 2) pinch = null;
    else if (count === 2) pinch = { from: spread().distance, scale: zoom.scale };
  }
  stage.addEventListener("pointerup", function (event) {
    var begun = start;
    lift(event);
    start = null;
    if (!begun) return;
    var dx = event.clientX - begun.x, dy = event.clientY - begun.y;
    if (zoom.scale === 1 && Math.abs(dx) >= 40 && Math.abs(dx) > Math.abs(dy)) { move((dx < 0) !== rtl ? 1 : -1); return; }
    /* A finger dragging the photo down closes it. */
    if (zoom.scale === 1 && event.pointerType === "touch" && dy >= 80 && dy > Math.abs(dx)) { close(); return; }
    if (event.pointerType === "touch" && Math.abs(dx) < 10 && Math.abs(dy) < 10) {
      if (lastTap && event.timeStamp - lastTap < 300) {
        lastTap = null;
        if (zoom.scale > 1) unzoom(); else zoomTo(2.5, event.clientX, event.clientY);
      } else lastTap = event.timeStamp;
    }
  });
  stage.addEventListener("pointercancel", function (event) { lift(event); start = null; });
  /* A click on the dark around the photo closes, as a click outside a dialog does. */
  stage.addEventListener("click", function (event) { if (event.target === stage) close(); });
})();
