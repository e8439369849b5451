declare module '@met4citizen/headaudio/dist/headaudio.min.mjs' {
  export class HeadAudio extends AudioWorkletNode {
    constructor(ctx: BaseAudioContext, options?: { processorOptions?: Record<string, unknown>; parameterData?: Record<string, number> });
    onvalue: ((key: string, value: number) => void) | null;
    loadModel(url: string, reset?: boolean): Promise<void>;
    update(dtMs: number): void;
  }
}
