import WebSocket from 'ws';
import { AgentApi, AudioFrameKind, LiveCode, LiveProtocol, ZAgentFrame, readAudioFrame, writeAudioFrame, type TAgentServerFrame } from '@persona/contract';
import { ProviderError } from '../core/errors.js';
import { EXTERNAL_AGENT, refuseAgent, type AgentJoiner } from './agent-bridge.js';
import { Resampler, bytesToSamples, samplesToBytes } from '../core/audio.js';
import type { TtsEngine } from '../providers/tts/types.js';
import { Listener } from '../listening/turns.js';
import type { RealtimeConnection, RealtimeEvent } from '../providers/realtime/types.js';
import { withoutDetail } from './turn-detail.js';

/** Mic audio waiting in the agent's socket beyond this is dropped (a slow agent must not grow our memory). */
const MAX_BUFFERED_BYTES = 1024 * 1024;

/** A token bucket: `capacity` units, refilled at `perSecond`. */
function bucket(capacity: number, perSecond: number, now: () => number) {
  let tokens = capacity;
  let at = now();
  return (cost: number): boolean => {
    const t = now();
    tokens = Math.min(capacity, tokens + ((t - at) / 1000) * perSecond);
    at = t;
    if (cost > tokens) return false;
    tokens -= cost;
    return true;
  };
}

export interface ExternalAgentOptions {
  now?: () => number;
}

/**
 * An external agent's session socket as a RealtimeConnection (ADR 072), so live/realtime-session.ts
 * drives it like any connection that hears and speaks: the visitor's mic audio (16 kHz, the page's
 * binary header) and typed text go to the agent; its audio (at the rate of its hello), text,
 * `response.start`/`response.end`, the visitor's transcripts and `interrupt` come back as
 * RealtimeEvents. Every input is bounded: frame sizes, JSON shape, text lengths, audio ahead of
 * real time and frames per second (over → the socket is closed with `rateLimited`). `speak`
 * frames are said with the joiner's voice (the avatar's TTS); with hello `transcripts: true` the
 * joiner's listening (the avatar's VAD and STT) transcribes the mic audio for the agent and, told
 * what the visitor hears (`avatarHeard`), detects barge-in with the avatar's rules (as for the LLM
 * brain: allow_interruptions, min_interruption_duration, min_interruption_words; pause, then
 * interrupt or resume) — the agent then gets `interrupted` as if it had sent `interrupt`.
 */
export async function connectExternalAgent(joiner: AgentJoiner, onEvent: (ev: RealtimeEvent) => void, signal: AbortSignal, opts: ExternalAgentOptions = {}): Promise<RealtimeConnection> {
  const now = opts.now ?? Date.now;
  const { socket, sampleRate, transcripts } = await joiner.join(signal);
  if (socket.readyState !== WebSocket.OPEN) throw new ProviderError(EXTERNAL_AGENT, 'the agent left before the session began');
  const send = (frame: TAgentServerFrame) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  };
  const audioBudget = bucket(AgentApi.audioBurstSeconds * sampleRate, AgentApi.audioRefillFactor * sampleRate, now);
  const jsonBudget = bucket(AgentApi.jsonBurst, AgentApi.jsonPerSecond, now);
  let micSeq = 0;
  let responses = 0;
  let userItems = 0;
  /** The answer being received (null: none open). */
  let current: { id: string; chars: number } | null = null;
  /** After an interruption the rest of that answer is dropped, until the agent starts or ends one. */
  let muted = false;
  let userItem: { id: string; interim: string } | null = null;
  let closedByUs = false;
  let closed = false;
  /** `speak` frames are said one after another; an interruption drops those still waiting. */
  let speaking: Promise<void> = Promise.resolve();
  let queuedSpeak = 0;
  let interruptions = 0;
  let speakAbort: AbortController | null = null;
  let voice: TtsEngine | null | undefined;

  const begin = (responseId?: string) => {
    if (current) end('completed');
    muted = false;
    current = { id: responseId ?? `r${++responses}`, chars: 0 };
    onEvent({ type: 'response-start', responseId: current.id });
    return current;
  };
  const end = (status: string) => {
    const r = current;
    if (!r) return;
    current = null;
    onEvent({ type: 'response-done', responseId: r.id, status, error: null });
  };
  const violation = (code: string, message: string, closeCode: number) => {
    refuseAgent(socket, code, message, closeCode);
  };
  /** The visitor's words (the agent's STT, or ours): the page's transcript and the history's user entry. */
  const userSaid = (text: string, final: boolean) => {
    if (!userItem) {
      // Its place in the history.
      userItem = { id: `u${++userItems}`, interim: '' };
      onEvent({ type: 'user-item', itemId: userItem.id });
    }
    const item = userItem;
    if (final) {
      userItem = null;
      onEvent({ type: 'user-transcript', itemId: item.id, text: text.trim(), final: true });
    } else if (text.startsWith(item.interim) && text.length > item.interim.length) {
      // Our sessions append interim deltas; an STT gives the hypothesis so far.
      onEvent({ type: 'user-transcript', itemId: item.id, text: text.slice(item.interim.length), final: false });
      item.interim = text;
    } else if (text.trim() && text !== item.interim) {
      // A revised hypothesis: it replaces the one before (kept by the transcript as a correction, ADR 102).
      onEvent({ type: 'user-transcript', itemId: item.id, text, final: false, replace: true });
      item.interim = text;
    }
  };

  /** After an interruption: the rest of the answer is dropped, a synthesis in progress stops, queued `speak`s are forgotten. */
  const interrupt = () => {
    muted = true;
    interruptions++;
    speakAbort?.abort();
  };

  /** One `speak`: an answer of its own, spoken with the avatar's voice (resampled to the connection's rate). */
  async function speakOne(text: string, generation: number) {
    if (closed || generation !== interruptions) return;
    // The joiner's voice: the avatar's, made on the first `speak` (null: none here, the words are only shown).
    voice ??= joiner.voice?.() ?? null;
    const r = begin();
    onEvent({ type: 'text', responseId: r.id, itemId: r.id, delta: text });
    if (!voice) {
      send({ type: 'error', code: 'no-voice', message: 'the avatar has no voice on this server: send audio (the words were shown)' });
      end('completed');
      return;
    }
    const ac = new AbortController();
    speakAbort = ac;
    let resampler: Resampler | null = null;
    try {
      for await (const chunk of voice.synthesize(text, { signal: ac.signal })) {
        if (ac.signal.aborted || closed || current !== r) break;
        if (chunk.sampleRate !== sampleRate) resampler ??= new Resampler(chunk.sampleRate, sampleRate);
        const pcm = resampler ? resampler.push(chunk.pcm) : chunk.pcm;
        if (pcm.length) onEvent({ type: 'audio', responseId: r.id, itemId: r.id, pcm });
      }
      const rest = resampler?.flush();
      if (rest?.length && !ac.signal.aborted && current === r) onEvent({ type: 'audio', responseId: r.id, itemId: r.id, pcm: rest });
    } catch (err) {
      if (!ac.signal.aborted && !closed) onEvent({ type: 'error', error: err instanceof ProviderError ? err : new ProviderError(voice.provider, String(err)) });
    } finally {
      if (speakAbort === ac) speakAbort = null;
      if (current === r && !muted) end('completed');
    }
  }

  const onJson = (raw: string) => {
    if (!jsonBudget(1)) return violation(LiveCode.rateLimited, `more than ${AgentApi.jsonPerSecond} frames per second`, AgentApi.close.rateLimited);
    let frame;
    try {
      const parsed = ZAgentFrame.safeParse(JSON.parse(raw));
      frame = parsed.success ? parsed.data : null;
    } catch {
      frame = null;
    }
    if (!frame) return violation(LiveCode.badFrame, 'unknown or malformed frame', AgentApi.close.badFrame);
    switch (frame.type) {
      case 'response.start':
        begin(frame.responseId);
        break;
      case 'text': {
        if (muted || !frame.delta) break;
        const r = current ?? begin();
        const room = AgentApi.maxAnswerChars - r.chars;
        if (room <= 0) break;
        const delta = frame.delta.slice(0, room);
        r.chars += delta.length;
        onEvent({ type: 'text', responseId: r.id, itemId: r.id, delta });
        break;
      }
      case 'response.end':
        if (muted) muted = false;
        else end('completed');
        break;
      case 'transcript':
        userSaid(frame.text, frame.final);
        break;
      case 'speak': {
        if (queuedSpeak >= AgentApi.maxQueuedSpeak) {
          send({ type: 'error', code: LiveCode.rateLimited, message: `at most ${AgentApi.maxQueuedSpeak} speak frames may wait` });
          break;
        }
        queuedSpeak++;
        const generation = interruptions;
        const text = frame.text;
        speaking = speaking
          .then(() => speakOne(text, generation))
          .catch(() => undefined)
          .finally(() => queuedSpeak--);
        break;
      }
      case 'interrupt':
        // Stop the avatar: the conversation's own interruption (what was heard comes back as `interrupted`).
        onEvent({ type: 'speech-started' });
        break;
      case 'ping':
        send({ type: 'pong', ...(frame.t !== undefined ? { t: frame.t } : {}) });
        break;
    }
  };

  const onBinary = (buf: Buffer) => {
    const frame = readAudioFrame(new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength));
    if (!frame || frame.header.kind !== AudioFrameKind.avatar || frame.pcm.byteLength % 2 !== 0) {
      return violation(LiveCode.badFrame, 'audio frames are the 8-byte header (kind 2) + PCM16LE, at most 64 KB', AgentApi.close.badFrame);
    }
    const pcm = bytesToSamples(frame.pcm);
    if (!audioBudget(pcm.length)) return violation(LiveCode.rateLimited, `audio more than ${AgentApi.audioBurstSeconds} s ahead of real time`, AgentApi.close.rateLimited);
    if (muted || pcm.length === 0) return;
    const r = current ?? begin();
    onEvent({ type: 'audio', responseId: r.id, itemId: r.id, pcm });
  };

  socket.on('message', (data, isBinary) => {
    if (closed) return;
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data);
    if (isBinary) return onBinary(buf);
    if (buf.length > LiveProtocol.maxTextFrame) return violation(LiveCode.badFrame, 'JSON frames are at most 16 KB', AgentApi.close.badFrame);
    onJson(buf.toString('utf8'));
  });
  // Transcripts by the worker (hello `transcripts: true`): the avatar's VAD and STT on the mic audio.
  let listener: Listener | null = null;
  if (transcripts) {
    const l = joiner.listening?.() ?? null;
    if (!l) send({ type: 'error', code: 'no-transcripts', message: 'the avatar cannot transcribe on this server: transcribe the audio yourself' });
    else {
      l.warm?.();
      listener = new Listener({
        options: l.options,
        vad: l.vad,
        denoiser: l.denoiser,
        stt: l.stt,
        clock: l.clock,
        sttLanguages: l.languages,
        sttModel: l.model,
        sttPhrases: l.phrases,
        events: {
          transcript: (text, final) => {
            if (final || !text.trim()) return;
            userSaid(text.slice(0, 2000), false);
            send({ type: 'transcript', text: text.slice(0, 2000), final: false });
          },
          commit: (text) => {
            if (!text.trim()) return;
            userSaid(text.slice(0, 2000), true);
            send({ type: 'transcript', text: text.slice(0, 2000).trim(), final: true });
          },
          // Barge-in over what the visitor hears (avatarHeard): the page holds the avatar, then
          // it stops (the session's interruption: `interrupted` to the page and to the agent) or goes on.
          pause: (utt) => onEvent({ type: 'speech-paused', utt }),
          resume: (utt) => onEvent({ type: 'speech-resumed', utt }),
          interrupt: () => onEvent({ type: 'speech-started' }),
          error: (err) => send({ type: 'error', code: 'stt-error', message: err.message.slice(0, 200) }),
        },
      });
      listener.setMic(true);
    }
  }

  socket.on('close', (code) => {
    if (closed) return;
    closed = true;
    listener?.close();
    speakAbort?.abort();
    end('incomplete');
    onEvent({ type: 'closed', error: closedByUs ? null : new ProviderError(EXTERNAL_AGENT, `the agent left (close ${code})`) });
  });
  socket.on('error', () => undefined);

  return {
    inputSampleRate: LiveProtocol.micSampleRate,
    outputSampleRate: sampleRate,
    appendAudio(pcm) {
      if (closed || pcm.length === 0) return;
      void listener?.push(pcm);
      if (socket.readyState !== WebSocket.OPEN || socket.bufferedAmount > MAX_BUFFERED_BYTES) return;
      socket.send(writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: micSeq++ }, samplesToBytes(pcm)), { binary: true });
    },
    sendUserText: (text) => send({ type: 'user.text', text }),
    say: (text) => send({ type: 'say', text }),
    seedHistory(entries) {
      if (entries.length) send({ type: 'history', entries: withoutDetail(entries) });
    },
    truncate(itemId, audioEndMs) {
      send({ type: 'interrupted', responseId: itemId, heardMs: Math.floor(audioEndMs) });
      if (current?.id === itemId) {
        interrupt();
        // After the session's own handling of the interruption (not inside it).
        queueMicrotask(() => end('cancelled'));
      }
    },
    cancelResponse() {
      if (!current || muted) return;
      send({ type: 'interrupted', responseId: current.id, heardMs: null });
      interrupt();
      queueMicrotask(() => end('cancelled'));
    },
    toolResult: () => undefined,
    avatarHeard(utt, text) {
      if (!closed) listener?.setAgentSpeaking(utt, text);
    },
    close() {
      if (closedByUs) return;
      closedByUs = true;
      listener?.close();
      send({ type: 'bye', reason: 'session-ended' });
      if (socket.readyState === WebSocket.OPEN || socket.readyState === WebSocket.CONNECTING) socket.close(AgentApi.close.ended, 'session ended');
    },
  };
}
