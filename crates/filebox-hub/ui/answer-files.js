// The files an answer carries: a chip for each one pasted, dropped, picked or recorded (a voice
// note from the microphone), and their base64 form for email.reply.

import { $, el } from "./dom.js";

/** Collects the files of the card `node`; a missing microphone is said in `status`. */
export function answerFiles(node, status) {
  const files = []; // { file, name }
  const add = (file, name = file.name || "attachment") => {
    const entry = { file, name };
    files.push(entry);
    $(".chips", node).append(chip(entry, () => files.splice(files.indexOf(entry), 1)));
  };
  $(".answer", node).addEventListener("paste", (event) => {
    for (const item of event.clipboardData?.items || []) {
      const file = item.kind === "file" && item.getAsFile();
      if (!file) continue;
      event.preventDefault();
      add(file, pastedName(file));
    }
  });
  node.addEventListener("dragover", (event) => event.preventDefault());
  node.addEventListener("drop", (event) => {
    event.preventDefault();
    for (const file of event.dataTransfer?.files || []) add(file);
  });
  $(".files", node).addEventListener("change", (event) => {
    for (const file of event.target.files) add(file);
    event.target.value = "";
  });
  recordVoice($(".record", node), add, status);
  return {
    count: () => files.length,
    encoded: () => Promise.all(files.map(encode)),
  };
}

function chip(entry, removed) {
  const node = el("span", { className: "chip" });
  if (entry.file.type.startsWith("image/")) node.append(el("img", { src: URL.createObjectURL(entry.file), alt: entry.name }));
  const remove = () => {
    removed();
    node.remove();
  };
  node.append(entry.name, el("button", { type: "button", textContent: "×", title: "Remove", onclick: remove }));
  return node;
}

/** A pasted file's own name, unless it is the browser's generic "image.png". */
function pastedName(file) {
  if (file.name && file.name !== "image.png") return file.name;
  const extension = (file.type.split("/")[1] || "bin").replace(/[^a-z0-9]/g, "");
  return `pasted-${Date.now()}.${extension}`;
}

/** The Record button records from the microphone until pressed again, then adds the voice note. */
function recordVoice(button, add, status) {
  let recorder = null;
  button.onclick = async () => {
    if (recorder) {
      recorder.stop();
      return;
    }
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const chunks = [];
      recorder = new MediaRecorder(stream);
      recorder.ondataavailable = (event) => chunks.push(event.data);
      recorder.onstop = () => {
        stream.getTracks().forEach((track) => track.stop());
        const type = (recorder.mimeType || "audio/webm").split(";")[0];
        add(new File(chunks, `voice-${Date.now()}.${type.split("/")[1] || "webm"}`, { type }));
        recorder = null;
        button.textContent = "Record";
        button.classList.remove("recording");
      };
      recorder.start();
      button.textContent = "Stop";
      button.classList.add("recording");
    } catch (error) {
      status.textContent = `No microphone: ${error.message}`;
    }
  };
}

async function encode({ file, name }) {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { name, mimeType: file.type || undefined, data: btoa(binary) };
}
