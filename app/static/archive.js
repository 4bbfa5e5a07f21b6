// The season's end (R12.4, R12.5): the season book's Print button, and the club screen
// telling the room when its link was revoked (its timed refresh is answered 404).
(function () {
  "use strict";
  document.addEventListener("click", function (e) {
    var button = e.target.closest && e.target.closest("[data-print]");
    if (button) window.print();
  });
  document.addEventListener("htmx:responseError", function (e) {
    if (!document.body.classList.contains("club-screen")) return;
    if (e.detail && e.detail.xhr && e.detail.xhr.status === 404) document.body.classList.add("screen-gone");
  });
})();
