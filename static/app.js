// Small progressive enhancements; every page works without this file.
document.addEventListener("DOMContentLoaded", () => {
  const current = document.querySelector(".tabs [aria-current='page']");
  if (current) current.scrollIntoView({ block: "nearest", inline: "center" });
});

