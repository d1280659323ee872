// Telling the human that a question arrived: a short tone and, once allowed, a notification.

import { plainTitle } from "./markdown.js";

/** The "Notify me" button asks the browser's permission to notify, and plays the tone. */
export function offerNotifications(button) {
  button.onclick = async () => {
    if ("Notification" in window) await Notification.requestPermission();
    beep();
  };
}

/** Tells of a new `question`. */
export function announce(question) {
  beep();
  if ("Notification" in window && Notification.permission === "granted") {
    new Notification(`${question.from} asks`, { body: plainTitle(question.title), tag: question.id });
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
