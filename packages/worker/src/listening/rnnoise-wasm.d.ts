// `@echogarden/rnnoise-wasm` ships no types: the Emscripten module's part the denoiser uses (ADR 096).
declare module '@echogarden/rnnoise-wasm' {
  export interface RnnoiseWasm {
    HEAPF32: Float32Array;
    _malloc(bytes: number): number;
    _free(ptr: number): void;
    _rnnoise_get_frame_size(): number;
    _rnnoise_get_size(): number;
    /** A denoiser state (null model: the built-in one). */
    _rnnoise_create(model: number): number;
    _rnnoise_destroy(state: number): void;
    /** Denoises one frame (in place allowed), float samples at 16-bit scale; returns RNNoise's voice probability. */
    _rnnoise_process_frame(state: number, out: number, input: number): number;
  }
  const createRnnoise: (options?: Record<string, unknown>) => Promise<RnnoiseWasm>;
  export default createRnnoise;
}
