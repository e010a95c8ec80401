// Swagger UI on /docs, from the bundle the server ships (no CDN): the server's own OpenAPI.
window.ui = SwaggerUIBundle({ url: "/openapi.json", dom_id: "#swagger-ui", deepLinking: true,
  onComplete: () => { document.body.dataset.ready = "docs"; } });
