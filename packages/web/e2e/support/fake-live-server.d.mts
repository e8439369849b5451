export const SAMPLE_RATE: number;
export interface ScriptSegment {
  t: number;
  d: number;
  v: string | null;
  w?: string;
}
export const SCRIPT: ScriptSegment[];
export const SCRIPT_MS: number;
export function scriptPcm(sampleRate?: number): Int16Array;
export interface FakeLive {
  url: string;
  port: number;
  avatars: Record<string, { name: string; dhType: number; avatarConfigUrl?: string | null; photoUrl?: string | null }>;
  files: Record<string, { type: string; body: string | Buffer; headers?: Record<string, string> }>;
  /** Playback reports the page sent, with the page socket (1, 2, … in the order they opened) each came on. */
  playback: { type: 'playback'; utt: number; state: 'started' | 'progress' | 'ended'; playedMs: number; at: number; connection: number }[];
  mic: { kind: number; flags: number; seq: number; samples: number; rms: number; at: number }[];
  micSwitches: boolean[];
  /** Page sockets opened so far (a resumed page opens another). */
  readonly connections: number;
  /** The worker dies: page sockets drop without a goodbye; the session resumes on a stand-in worker counting utterances from 1. */
  killWorker(): void;
  /** Sends a worker frame (JSON) to every open page socket. */
  broadcast(frame: Record<string, unknown>): void;
  close(): Promise<void>;
}
export function startFakeLive(opts?: {
  avatars?: FakeLive['avatars'];
  files?: FakeLive['files'];
  withVisemes?: boolean;
  audioSampleRate?: number;
  frameMs?: number;
  /** The worker says it listens (ready.listening) and answers speech heard on the mic frames. */
  listening?: boolean;
  ui?: Partial<{ transcriptionStreaming: boolean; canHandleSttResponse: boolean; subtitles: boolean }>;
}): Promise<FakeLive>;
