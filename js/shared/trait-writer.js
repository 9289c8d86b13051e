// Writes from the controls to the model, throttled to the animation frame: the first write after a
// quiet frame goes at once (a click or the start of a drag waits for nothing), the writes that
// follow within the same frame are coalesced and sent when it ends, carrying the latest value of
// each trait — so a drag sends at most one update (one save_changes) per frame.

export function createTraitWriter(model, { requestFrame, cancelFrame } = {}) {
  const request = requestFrame ?? ((f) => globalThis.requestAnimationFrame(f));
  const cancel = cancelFrame ?? ((id) => globalThis.cancelAnimationFrame(id));
  const pending = new Map();
  let frame = null; // the cooldown frame after a send

  function send() {
    if (pending.size === 0) return false;
    const writes = [...pending];
    pending.clear();
    for (const [key, value] of writes) model.set(key, value);
    model.save_changes();
    return true;
  }

  function onFrame() {
    frame = null;
    if (send()) frame = request(onFrame);
  }

  return {
    /** Set `key = value`: at once after a quiet frame, else at the end of this frame (the latest value). */
    write(key, value) {
      pending.set(key, value);
      if (frame === null) {
        send();
        frame = request(onFrame);
      }
    },
    /** Whether the view has a write for `key` that the model has not seen yet. */
    isPending(key) {
      return pending.has(key);
    },
    /** Send what is queued now. */
    flush() {
      send();
    },
    /** Send what is queued now and stop. */
    dispose() {
      if (frame !== null) cancel(frame);
      frame = null;
      send();
    },
  };
}
