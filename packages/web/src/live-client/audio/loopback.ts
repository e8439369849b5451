/**
 * Chrome's echo cancellation ignores audio played through Web Audio (Chromium issue 687574): it
 * cancels only what media elements and WebRTC play. So the avatar's voice goes from the audio
 * graph into a local RTCPeerConnection pair and out of an <audio> element, where the canceller
 * sees it. Returns null (play directly instead) when WebRTC is missing or the pair does not
 * connect in time (some browsers gather no candidates without a network).
 */
export interface Loopback {
  /** Delay the loopback adds (ms): the receiver's jitter buffer and packetisation. */
  latencyMs(): number;
  close(): void;
}

export async function openLoopback(stream: MediaStream, audio: HTMLAudioElement, timeoutMs = 2500): Promise<Loopback | null> {
  if (typeof RTCPeerConnection === 'undefined') return null;
  const a = new RTCPeerConnection({ iceServers: [] });
  const b = new RTCPeerConnection({ iceServers: [] });
  let latency = 30;
  let timer: ReturnType<typeof setInterval> | undefined;
  const close = () => {
    clearInterval(timer);
    a.close();
    b.close();
    audio.srcObject = null;
  };
  try {
    a.onicecandidate = (e) => void (e.candidate && b.addIceCandidate(e.candidate).catch(() => undefined));
    b.onicecandidate = (e) => void (e.candidate && a.addIceCandidate(e.candidate).catch(() => undefined));
    for (const track of stream.getAudioTracks()) a.addTrack(track, stream);
    const received = new Promise<MediaStream>((resolve) => {
      b.ontrack = (e) => resolve(e.streams[0] ?? new MediaStream([e.track]));
    });
    const offer = await a.createOffer();
    await a.setLocalDescription(offer);
    await b.setRemoteDescription(offer);
    const answer = await b.createAnswer();
    // Mono speech, no discontinuous transmission (it would clip word onsets), in-band FEC.
    const opus = /a=rtpmap:(\d+) opus\/48000/i.exec(answer.sdp ?? '')?.[1];
    if (opus && answer.sdp) answer.sdp = answer.sdp.replace(new RegExp(`a=fmtp:${opus} (.*)`), (_line, params: string) => `a=fmtp:${opus} ${params};usedtx=0;stereo=0`);
    await b.setLocalDescription(answer);
    await a.setRemoteDescription(answer);
    const connected = new Promise<boolean>((resolve) => {
      const check = () => {
        if (b.connectionState === 'connected') resolve(true);
        else if (b.connectionState === 'failed' || b.connectionState === 'closed') resolve(false);
      };
      b.onconnectionstatechange = check;
      check();
      setTimeout(() => resolve(false), timeoutMs);
    });
    const [ok, remote] = await Promise.all([connected, Promise.race([received, new Promise<null>((r) => setTimeout(() => r(null), timeoutMs))])]);
    if (!ok || !remote) {
      close();
      return null;
    }
    for (const receiver of b.getReceivers()) {
      // Ask for the smallest jitter buffer (Chrome: jitterBufferTarget, older: playoutDelayHint).
      const r = receiver as unknown as { jitterBufferTarget?: number | null; playoutDelayHint?: number };
      try {
        if ('jitterBufferTarget' in r) r.jitterBufferTarget = 0;
        else r.playoutDelayHint = 0;
      } catch {
        // not supported
      }
    }
    audio.srcObject = remote;
    audio.autoplay = true;
    await audio.play().catch(() => undefined);
    // The delay the jitter buffer adds, over the last interval (not the average since the start,
    // which hides a change for minutes), checked often: the first words follow Connect at once,
    // and a wrong guess puts the mouth ahead of the sound.
    let last = { delay: 0, emitted: 0 };
    const measure = () =>
      void b.getStats().then((stats) => {
        stats.forEach((s: { type?: string; kind?: string; jitterBufferDelay?: number; jitterBufferEmittedCount?: number }) => {
          if (s.type !== 'inbound-rtp' || s.kind !== 'audio' || !s.jitterBufferEmittedCount) return;
          const delay = s.jitterBufferDelay ?? 0;
          const emitted = s.jitterBufferEmittedCount - last.emitted;
          if (emitted > 0) {
            // Mean jitter-buffer delay of the samples emitted since the last look, plus half an
            // Opus frame of packetisation.
            latency = Math.min(400, ((delay - last.delay) / emitted) * 1000 + 10);
          }
          last = { delay, emitted: s.jitterBufferEmittedCount };
        });
      });
    measure();
    timer = setInterval(measure, 250);
    return { latencyMs: () => latency, close };
  } catch {
    close();
    return null;
  }
}
