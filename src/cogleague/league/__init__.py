"""The league: run thousands of episodes between policies and rank them with honest uncertainty.

Flow: a TOML definition (`config`) names games, variants and policies (`policies`); `seating`
builds a balanced rotation of line-ups; `episodes` turns each into a spec with a stable id;
`runner` plays the specs not yet finished on a backend (`backends.local` process pool or
`backends.ray_backend`) and writes each outcome to the `store` (the same database the table
server records into); `rankings` reads the store back; `report` draws it.
"""
