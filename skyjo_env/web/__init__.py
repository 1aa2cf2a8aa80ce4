"""`skyjo serve`: Skyjo in the browser. The game logic, without a web framework, by subject:
`roster` (the opponents on offer), `table` (rule options, frames, narration: what the browser
may see), `game` (a live game), `replay` (a loaded record), `review` (a round reviewed),
`store` (the games of one server) and `history` (its SQLite database), `errors`; then
`app.create_app`, the Starlette app (the `web` extra), and `static/`, the page.

Nothing is imported here, so that `import skyjo_env.web.command` works without the extra.
"""
