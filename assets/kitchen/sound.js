// A short beep for a new ticket, made with WebAudio (no sound file). Browsers
// let a page play sound only after someone has touched it, so the audio
// context is made on the first tap or key press, never before: nothing is
// refused and nothing is logged. Muting is remembered on this screen.

const MUTED_KEY = "brigade.kitchen.muted";

let context = null;

export function muted() {
  return localStorage.getItem(MUTED_KEY) === "1";
}

export function setMuted(value) {
  if (value) localStorage.setItem(MUTED_KEY, "1");
  else localStorage.removeItem(MUTED_KEY);
}

/** Whether a beep would be heard now (sound on, and the screen touched once). */
export function audible() {
  return !muted() && context?.state === "running";
}

/** Makes or wakes the audio context; call only from a tap or key press. */
export function unlock() {
  if (muted() || navigator.userActivation?.hasBeenActive === false) return;
  try {
    if (!context) {
      const Context = window.AudioContext || window.webkitAudioContext;
      if (!Context) return;
      context = new Context();
    }
    if (context.state === "suspended") context.resume().catch(() => {});
  } catch {
    context = null;
  }
}

for (const type of ["pointerdown", "pointerup", "touchend", "click", "keydown"]) {
  window.addEventListener(type, (event) => event.isTrusted && unlock(), { capture: true, passive: true });
}

let lastBeep = 0;

/** Two short high tones, at most one beep a second. */
export function beep() {
  if (!audible() || Date.now() - lastBeep < 1000) return;
  lastBeep = Date.now();
  try {
    const start = context.currentTime + 0.01;
    for (const [offset, frequency] of [[0, 880], [0.18, 1175]]) {
      const oscillator = context.createOscillator();
      const gain = context.createGain();
      oscillator.type = "sine";
      oscillator.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + offset);
      gain.gain.exponentialRampToValueAtTime(0.4, start + offset + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + offset + 0.15);
      oscillator.connect(gain).connect(context.destination);
      oscillator.start(start + offset);
      oscillator.stop(start + offset + 0.16);
    }
  } catch {
    // No sound this time; the ticket still shows.
  }
}
