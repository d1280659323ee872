// Telling the human that a question arrived: a short tone, and a browser notification while the
// page is in a background tab, once the person allowed it with the "Notify me" button (the
// browser's permission prompt only ever follows that click; the button goes once answered).

import { plainTitle } from "./markdown.js";

const supported = () => "Notification" in window;

/** Offers `button` while the browser has not been told whether the page may notify; a click
 * asks it (and plays the tone, so the person knows what a question sounds like). */
export function offerNotifications(button) {
  const offer = () => {
    button.hidden = !supported() || Notification.permission !== "default";
  };
  offer();
  button.onclick = async () => {
    beep();
    if (supported()) await Notification.requestPermission();
    offer();
  };
}

/** Tells of a new `question`: the tone, and a notification when the page is not in view. */
export function announce(question) {
  beep();
  if (document.hidden && supported() && Notification.permission === "granted") {
    const notification = new Notification(`${question.from} asks`, { body: plainTitle(question.title), tag: question.id });
    notification.onclick = () => window.focus();
  }
}

function beep() {
  try {
    const audio = new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 880;
    gain.gain.value = 0.08;
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.15);
  } catch {
    /* no audio: the page still shows the question */
  }
}
