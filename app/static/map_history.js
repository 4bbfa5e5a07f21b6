// R12.6, the map through time: the round slider redraws each marker's owner colour and icon
// from the rounds the page holds (data-timeline, app/archive/history.py); Play steps through
// them once a second. The current round is the map as the page drew it.
(function () {
  "use strict";
  var box = document.getElementById("map-history");
  var svg = document.getElementById("map");
  if (!box || !svg) return;
  var data = JSON.parse(box.getAttribute("data-timeline"));
  var slider = document.getElementById("map-round");
  var label = document.getElementById("map-round-label");
  var play = document.getElementById("map-play");
  var now = {};
  svg.querySelectorAll("a.pl").forEach(function (a) {
    var icon = a.querySelector("text.i");
    now[a.id.slice(1)] = [a.getAttribute("class"), icon ? icon.textContent : "", null];
  });
  function iconOf(a, text) {
    var icon = a.querySelector("text.i");
    if (!icon && text) {
      icon = document.createElementNS("http://www.w3.org/2000/svg", "text");
      icon.setAttribute("class", "i");
      icon.setAttribute("dy", ".35em");
      a.insertBefore(icon, a.querySelector("circle").nextSibling);
    }
    if (icon) icon.textContent = text;
  }
  function show(round) {
    var state = round === data.current ? now : data.rounds[round] || {};
    svg.querySelectorAll("a.pl").forEach(function (a) {
      var mark = state[a.id.slice(1)];
      a.style.display = mark ? "" : "none"; // a place added later was not on the map then
      if (!mark) return;
      a.setAttribute("class", mark[0]);
      iconOf(a, mark[1]);
    });
    var text = box.getAttribute(round === data.current ? "data-msg-now" : "data-msg-round");
    label.textContent = text.replace("{n}", round);
    svg.classList.toggle("past", round !== data.current);
  }
  slider.addEventListener("input", function () { show(Number(slider.value)); });
  var timer = null;
  function stop() {
    clearInterval(timer);
    timer = null;
    play.textContent = play.getAttribute("data-msg-play");
  }
  play.addEventListener("click", function () {
    if (timer) return stop();
    var first = Number(slider.min);
    slider.value = first;
    show(first);
    play.textContent = play.getAttribute("data-msg-stop");
    timer = setInterval(function () {
      var next = Number(slider.value) + 1;
      if (next > Number(slider.max)) return stop();
      slider.value = next;
      show(next);
    }, 1000);
  });
})();
