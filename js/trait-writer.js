// Writes from the controls to the model, coalesced per animation frame: a slider drag sends at
// most one update (one save_changes) per frame, carrying the latest value of each trait.

export function createTraitWriter(model, { requestFrame, cancelFrame } = {}) {
  const request = requestFrame ?? ((f) => globalThis.requestAnimationFrame(f));
  const cancel = cancelFrame ?? ((id) => globalThis.cancelAnimationFrame(id));
  const pending = new Map();
  let frame = null;

  function flush() {
    if (frame !== null) cancel(frame);
    frame = null;
    if (pending.size === 0) return;
    const writes = [...pending];
    pending.clear();
    for (const [key, value] of writes) model.set(key, value);
    model.save_changes();
  }

  return {
    /** Queue `key = value` for the next frame (replacing a queued value for the same key). */
    write(key, value) {
      pending.set(key, value);
      if (frame === null) {
        frame = request(() => {
          frame = null;
          flush();
        });
      }
    },
    /** Whether the view has a write for `key` that the model has not seen yet. */
    isPending(key) {
      return pending.has(key);
    },
    flush,
    /** Send what is queued now and stop. */
    dispose() {
      flush();
    },
  };
}
