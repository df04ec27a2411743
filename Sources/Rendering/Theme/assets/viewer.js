/* gallerygen viewer: progressive enhancement over the grid's links to the photo pages.
   A click on a tile shows the photo full screen over the grid, with the photo page's address in
   the address bar (back closes, a shared link opens that page). Only the photo shown and its two
   neighbours are ever loading: a photo flicked past before it arrived has its transfer aborted,
   so the one the visitor stops at never waits behind the ones skipped. */
(function () {
  "use strict";
  var doc = document;

  /* On a photo page: the arrow keys follow its previous and next links, Escape its way back. */
  if (doc.body && doc.body.classList.contains("photo-page")) {
    doc.addEventListener("keydown", function (event) {
      if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey || event.defaultPrevented) return;
      var selector = { ArrowLeft: 'a[rel="prev"]', ArrowRight: 'a[rel="next"]', Escape: "a.back" }[event.key];
      var link = selector && doc.querySelector(".photo-nav " + selector);
      if (link) location.href = link.href;
    });
    return;
  }

  var links = Array.prototype.slice.call(doc.querySelectorAll(".gallery a[data-full]"));
  if (!links.length || typeof HTMLDialogElement !== "function" || !window.fetch || !window.AbortController) return;

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
      style: img.getAttribute("style") || ""
    };
  });

  /* The format the browser chose for the tile (its current source), else the fallback. */
  function renditions(photo) {
    var current = photo.img.currentSrc;
    var extension = current && current.split(".").pop();
    for (var i = 0; extension && i < photo.sets.length; i++) {
      if (photo.sets[i].length && photo.sets[i][0].url.split(".").pop() === extension) return photo.sets[i];
    }
    return photo.sets[photo.sets.length - 1];
  }

  var dialog = doc.createElement("dialog");
  dialog.className = "viewer";
  dialog.tabIndex = -1;
  dialog.setAttribute("aria-label", "Photo viewer");
  dialog.innerHTML = '<div class="stage"><img alt=""></div><div class="said" hidden></div><div class="bar">' +
    '<button type="button" class="prev" aria-label="Previous photo">\u2190</button>' +
    '<p class="caption"><a></a> <span class="position"></span></p>' +
    '<button type="button" class="next" aria-label="Next photo">\u2192</button>' +
    '<button type="button" class="close" aria-label="Close">\u2715</button></div>';
  doc.body.appendChild(dialog);
  var stage = dialog.querySelector(".stage");
  var shown = dialog.querySelector(".stage img");
  var captionLink = dialog.querySelector(".caption a");
  var saidBox = dialog.querySelector(".said");
  var position = dialog.querySelector(".position");
  var previousButton = dialog.querySelector(".prev");
  var nextButton = dialog.querySelector(".next");

  var current = -1;
  var pushed = false;
  var loads = {};
  /* What each photo's page says (its caption, when it was taken, its download), by index, once
     read. */
  var said = {};
  var saidLoad = null;

  /* The caption comes from the photo's own page, read once the sharp photo is in and never
     while flicking: the page's text is ours, made by the build, as safe as this page. */
  function tell(index) {
    saidBox.hidden = !said[index];
    saidBox.innerHTML = said[index] || "";
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
        said[index] = [".caption", ".taken", ".download"].map(function (part) {
          var node = page.querySelector(".photo-view " + part);
          if (!node) return "";
          /* Its links are relative to the photo's page, not to this one. */
          Array.prototype.forEach.call(node.querySelectorAll("[href], [src]"), function (element) {
            ["href", "src"].forEach(function (name) {
              var value = element.getAttribute(name);
              if (value !== null) element.setAttribute(name, new URL(value, photos[index].page).href);
            });
          });
          return '<div class="' + part.slice(1) + '">' + node.innerHTML + "</div>";
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

  function load(index, priority) {
    var existing = loads[index];
    if (existing) return existing;
    var photo = photos[index];
    var rendition = pick(photo);
    var controller = new AbortController();
    var entry = { controller: controller, rendition: rendition, url: null, done: false };
    entry.promise = fetch(rendition.url, { signal: controller.signal, priority: priority })
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

  function show(index) {
    var photo = photos[index];
    current = index;
    settle(index);
    shown.className = "";
    shown.setAttribute("style", photo.style);
    shown.alt = photo.alt;
    shown.removeAttribute("data-width");
    /* The tile's own image, already here, stands in until the sharp one arrives. */
    if (photo.img.complete && photo.img.currentSrc) shown.src = photo.img.currentSrc;
    else shown.removeAttribute("src");
    var entry = load(index, "high");
    shown.width = entry.rendition.width;
    shown.height = Math.round(entry.rendition.width / photo.aspect);
    saidBox.hidden = true;
    captionLink.textContent = photo.title || photo.alt;
    captionLink.href = photo.page;
    position.textContent = index + 1 + " of " + photos.length;
    previousButton.disabled = index === 0;
    nextButton.disabled = index === photos.length - 1;
    entry.promise.then(function (result) {
      if (current !== index) return;
      if (result.url) {
        shown.onload = function () {
          if (current !== index) return;
          shown.className = "sharp";
          shown.setAttribute("data-width", result.rendition.width);
          tell(index);
        };
        shown.src = result.url;
      }
      /* Then the neighbours, so that they never compete with the photo being looked at. */
      if (index + 1 < photos.length) load(index + 1, "low");
      if (index > 0) load(index - 1, "low");
    });
  }

  function open(index) {
    if (!dialog.open) {
      dialog.showModal();
      dialog.focus();
    }
    show(index);
  }

  function move(step) {
    var index = current + step;
    if (current < 0 || index < 0 || index >= photos.length) return;
    show(index);
    history.replaceState({ gallerygenViewer: index }, "", photos[index].page);
  }

  function dismiss() {
    if (!dialog.open) return;
    var index = current;
    current = -1;
    settle(-Infinity);
    shown.removeAttribute("src");
    dialog.close();
    if (index >= 0) photos[index].link.focus();
  }

  function close() {
    if (pushed) {
      pushed = false;
      history.back(); /* popstate dismisses */
    } else {
      var index = current;
      dismiss();
      history.replaceState(null, "", base.split("#")[0] + (index >= 0 ? "#" + photos[index].link.parentNode.parentNode.id : ""));
    }
  }

  links.forEach(function (link, index) {
    link.addEventListener("click", function (event) {
      if (event.button !== 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
      event.preventDefault();
      history.pushState({ gallerygenViewer: index }, "", photos[index].page);
      pushed = true;
      open(index);
    });
  });

  window.addEventListener("popstate", function (event) {
    var state = event.state;
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
    if (!dialog.open || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "ArrowLeft") { event.preventDefault(); move(-1); }
    else if (event.key === "ArrowRight") { event.preventDefault(); move(1); }
    else if (event.key === "Home") { event.preventDefault(); move(-current); }
    else if (event.key === "End") { event.preventDefault(); move(photos.length - 1 - current); }
  });

  /* Swipe: a horizontal flick of 40 pixels or more, more sideways than up or down. */
  var start = null;
  stage.addEventListener("pointerdown", function (event) { start = { x: event.clientX, y: event.clientY }; });
  stage.addEventListener("pointerup", function (event) {
    if (!start) return;
    var dx = event.clientX - start.x, dy = event.clientY - start.y;
    start = null;
    if (Math.abs(dx) >= 40 && Math.abs(dx) > Math.abs(dy)) move(dx < 0 ? 1 : -1);
  });
  stage.addEventListener("pointercancel", function () { start = null; });
  /* A click on the dark around the photo closes, as a click outside a dialog does. */
  stage.addEventListener("click", function (event) { if (event.target === stage) close(); });
})();
