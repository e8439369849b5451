/**
 * One speech-to-text engine as the listening pipeline sees it (providers/stt/*.ts, the offline
 * recogniser). A client keeps its provider's wire format to itself: it takes the visitor's
 * 16 kHz PCM16 mono audio and reports what was said.
 *
 * Two shapes of provider exist: streaming ones (Deepgram's and Azure's WebSockets, Google's gRPC)
 * that get every frame as it comes and answer with interim and final results, and batch ones
 * (OpenAI-compatible `/audio/transcriptions`, the offline pocketsphinx process) that
 * get one utterance once the VAD has cut it. Both are behind the same session interface: a batch
 * engine buffers `push`ed audio and transcribes on `finalize`.
 */
export interface SttOptions {
  /** BCP-47 main language first, then the additional ones (at most 10); 'multi' for Deepgram's. */
  languages: string[];
  /** Provider model ('nova-3', 'latest_long', 'whisper-1'…), when the avatar sets one. */
  model?: string;
  /** Context phrases (the Brain tab's one-per-line list): keyterms / phrase hints. */
  phrases?: string[];
  /** Endpointing hint in ms for providers that take one (Deepgram's `endpointing`). */
  endpointingMs?: number;
  /** Interim results wanted (the avatar's `transcriptionStreaming`). */
  interim: boolean;
  /** Always 16 000: the page sends 16 kHz PCM16 in 20 ms frames. */
  sampleRate: 16_000;
  /** Aborted when the session ends: close sockets and processes at once. */
  signal: AbortSignal;
}

export interface SttResult {
  text: string;
  /** True once this stretch of text will not change again. */
  final: boolean;
  /** The provider thinks the speaker finished (Deepgram's `speech_final`, an Azure phrase, a batch result). */
  endOfTurn?: boolean;
  /** Detected language when the provider reports one. */
  language?: string;
  /** ms of audio (from the session's first pushed sample) this result covers, when known. */
  startMs?: number;
  endMs?: number;
}

export interface SttEvents {
  onResult(result: SttResult): void;
  /** The provider heard speech start (Deepgram's `SpeechStarted`); optional help for VAD. */
  onSpeechStarted?(): void;
  /** A failure the session cannot recover from by itself; ProviderError where HTTP was involved. */
  onError(err: Error): void;
}

export interface SttSession {
  /** One frame (or more) of 16 kHz PCM16 mono. Cheap; never blocks. */
  push(pcm: Int16Array): void;
  /**
   * The VAD says the utterance ended: flush what is buffered (Deepgram's `Finalize`, the end of an Azure turn's audio, a batch
   * engine's transcription). Resolves when the final result for it has been reported.
   */
  finalize(): Promise<void>;
  /** Drops buffered audio without transcribing (e.g. speech that turned out to be noise). */
  reset?(): void;
  /**
   * Said by the listener before the audio of a segment of speech that began over the avatar's voice
   * (true) or not (false): a backchannel or a stop request is then likelier than anything else. An
   * engine may listen for those (the offline recogniser decodes such an utterance with its
   * over-the-avatar model, ADR 107); others ignore it. English listeners only.
   */
  overAvatar?(on: boolean): void;
  close(): void;
}

export interface SttEngine {
  /** 'deepgram', 'azure', 'google', 'openai-compatible', 'offline', 'none'. */
  readonly provider: string;
  /** 'stream' engines want every frame; 'batch' engines are given one cut utterance at a time. */
  readonly mode: 'stream' | 'batch';
  open(options: SttOptions, events: SttEvents): Promise<SttSession>;
  /**
   * How long a flush has lately taken to answer on this engine's recogniser, any session's (ms);
   * null or absent: not known. A session that has not measured its own yet (the visitor's first
   * sound over the greeting) waits for a verdict this fast before resuming the avatar (ADR 104).
   */
  answerMs?(): number | null;
}

/**
 * A word's pronunciations in the recogniser's dictionary (each a list of phonemes, CMU ARPAbet
 * without stress); undefined: a word it does not know. The offline recogniser's lookup
 * (pronunciations.ts) lets the listener hear misheard stop requests by their sound (ADR 109).
 */
export type Pronounce = (word: string) => readonly (readonly string[])[] | undefined;
