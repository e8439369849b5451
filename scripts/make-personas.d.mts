// Types for the parts of make-personas.mjs that tests and benchmarks use.
export const BUDGET: { vertices: number; triangles: number; bytes: number };
export const VISEMES: string[];
export const EXPRESSIONS: string[];
export interface PersonaLook {
  id: string;
  skin: string;
  hair: string;
  shirt: string;
  bg: string;
  hairStyle: 'short' | 'long' | 'bun';
  build: 'f' | 'm';
  eyes?: string;
  lip?: string;
}
export function personaGlb(
  p: PersonaLook,
  opts: { fullBody: boolean; rename?: Record<string, string | null> | null; vrm?: boolean; clips?: Record<string, { node: string; pitchDeg: number; seconds: number }> },
): Promise<{ bytes: Buffer; figures: { vertices: number; triangles: number; bytes: number; morphTargets: number } }>;
/** A persona's meshes and where its head sits on the body (the thumbnail and the GLB read the same numbers). */
export interface Person {
  neckY: number;
  headScale: number;
  headLift: number;
  [part: string]: unknown;
}
export function buildPerson(p: PersonaLook, opts: { fullBody: boolean }): Person;
export function renderThumbnail(person: Person, opts: { fullBody: boolean; background: string; width?: number; height?: number }): Buffer;
