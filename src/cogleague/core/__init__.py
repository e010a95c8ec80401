"""The shared engine: seeded streams, text rules, the Game protocol, the episode runner, replays."""
