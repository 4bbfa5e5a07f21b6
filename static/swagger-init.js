// Starts the vendored Swagger UI from a file, not an inline script, so the page keeps the
// Content-Security-Policy (script-src 'self').
(function () {
  const holder = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: holder.dataset.openapiUrl,
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
  });
})();
