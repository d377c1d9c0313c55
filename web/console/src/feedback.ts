/**
 * What a picker hears and feels on a scan, so eyes can stay on the shelf: a short high beep when a
 * scan is accepted, a low double buzz (and a vibration where the device has one) when it is wrong.
 * Web Audio synthesises the tones: no sound file to ship or fetch.
 */
let audio: AudioContext | null = null;

function tone(frequency: number, startAt: number, seconds: number, type: OscillatorType): void {
  if (!audio) return;
  const oscillator = audio.createOscillator();
  const gain = audio.createGain();
  oscillator.type = type;
  oscillator.frequency.value = frequency;
  gain.gain.setValueAtTime(0.2, audio.currentTime + startAt);
  gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + startAt + seconds);
  oscillator.connect(gain).connect(audio.destination);
  oscillator.start(audio.currentTime + startAt);
  oscillator.stop(audio.currentTime + startAt + seconds);
}

function ready(): boolean {
  try {
    audio ??= new AudioContext();
    if (audio.state === 'suspended') void audio.resume();
    return true;
  } catch {
    return false; // no audio device: the message on screen still says it
  }
}

export function accepted(): void {
  if (ready()) tone(1320, 0, 0.08, 'sine');
}

export function rejected(): void {
  if (ready()) {
    tone(180, 0, 0.18, 'square');
    tone(180, 0.25, 0.18, 'square');
  }
  navigator.vibrate?.([200, 100, 200]);
}
