// A story is a game's events folded into steps the scrubber moves over. The same fold serves a
// replay file (all events at once) and a live table (events as the watch socket sends them):
// a step opens when the game says so (a new round, the end), and the newest step keeps
// changing as its events land.

export class Story {
  /** @param {object} game a game module (see games/*.js); @param {object} meta its header */
  constructor(game, meta) {
    this.game = game;
    this.meta = meta;
    this.steps = [{ label: "Start", round: null, final: false, state: game.initialState(meta), feed: [] }];
    this.events = 0;
  }

  get tail() {
    return this.steps[this.steps.length - 1];
  }

  /** Fold one event ({kind, ...fields}); returns true when it opened a new step. */
  push(event) {
    const open = this.game.opensStep(event, this.tail.state, this.meta);
    if (open) this.steps.push({ ...open, state: structuredClone(this.tail.state), feed: [] });
    const items = this.game.apply(this.tail.state, event, this.meta) || [];
    this.tail.feed.push(...items);
    this.events += 1;
    return Boolean(open);
  }

  stepOfRound(round) {
    const i = this.steps.findIndex((st) => st.round === round);
    return i < 0 ? null : i;
  }
}
