// Swagger UI on /docs, from the bundle the server ships (no CDN): the server's own OpenAPI.
// Plain (not colour-highlighted) examples and no deep links inside the operation buttons keep
// it within axe-core's contrast and nesting rules; scrolling code blocks get a tab stop.
window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: false,
  syntaxHighlight: { activated: false },
  onComplete: () => { document.body.dataset.ready = "docs"; } });
new MutationObserver(() => {
  for (const el of document.querySelectorAll("#swagger-ui pre:not([tabindex]), #swagger-ui textarea.body-param__example")) {
    el.setAttribute("tabindex", "0");
  }
}).observe(document.getElementById("swagger-ui"), { childList: true, subtree: true });
