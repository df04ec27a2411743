/* gallerygen: loads the viewer once the first screen's photos are in (the page's load event, or
   four seconds at most), so that its script does not share the network with them. Until then a
   tile opens its photo page, as it does without script. */
(function () {
  var started = false;
  function start() {
    if (started) return;
    started = true;
    var script = document.createElement("script");
    script.src = "assets/viewer.js";
    document.head.appendChild(script);
  }
  if (document.readyState === "complete") start();
  else addEventListener("load", start);
  setTimeout(start, 4000);
})();
