"""The HTTP door: the Litestar app (``app.create_app``), its routes, request and response schemas, problem
documents, tokens and limits. It settles who is asking and hands commands to the application layer."""
