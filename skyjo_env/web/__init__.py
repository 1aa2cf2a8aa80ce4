"""`skyjo serve`: Skyjo in the browser. `games` holds the game logic (no web framework),
`app.create_app` the Starlette app (the `web` extra), `command` the CLI glue, `static/` the page.

Nothing is imported here, so that `import skyjo_env.web.command` works without the extra.
"""
