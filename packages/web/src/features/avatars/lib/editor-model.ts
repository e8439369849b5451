import { DhType } from '@persona/contract';
import { prettyJson, type TAvatarConfig } from './avatar-config';
import type { TAvatar } from '@persona/contract';

export type EditorTab = 'appearance' | 'environment' | 'brain' | 'advanced' | 'embed';
export const EDITOR_TABS: { value: EditorTab; label: string }[] = [
  { value: 'appearance', label: 'APPEARANCE' },
  { value: 'environment', label: 'Environment' },
  { value: 'brain', label: 'Brain' },
  { value: 'advanced', label: 'ADVANCED' },
  { value: 'embed', label: 'EMBED' },
];

/** The Brain tab's sub-tabs; every field with a rule (engine and speech forms) is on FOUNDATIONS. */
export type BrainSubTab = 'foundations' | 'knowledge' | 'functions';

/** Where a tab may put a right-hand panel, under the preview (lg and up): the Brain tab's field help. */
export const EDITOR_SIDE_SLOT_ID = 'editor-side-slot';

/** What the editor changes besides the Advanced form. */
export interface EditorDraft {
  name: string;
  dhType: number;
  avatarConfig: TAvatarConfig;
  clientConfig: TAvatarConfig | null;
  /** A newly cropped photo (data:image/jpeg;base64,…). */
  avatarPhotoBase64?: string;
}

/** Fields the API computes: never sent back. */
const COMPUTED = ['nlpEngineName', 'dhTypeName', 'usersCount', 'created', 'updated', 'mediaDetails', 'accessLink', 'token', 'encKey'] as const;

/** The stored agent as a save payload (masked secrets stay masked: the server keeps them). */
export function storedPayload(agent: TAvatar): Record<string, unknown> {
  const payload: Record<string, unknown> = { ...agent };
  for (const key of COMPUTED) delete payload[key];
  return payload;
}

export function draftOf(agent: TAvatar, avatarConfig: TAvatarConfig, clientConfig: TAvatarConfig | null): EditorDraft {
  return { name: agent.name, dhType: agent.dhType, avatarConfig, clientConfig };
}

export function applyDraft(payload: Record<string, unknown>, draft: EditorDraft): Record<string, unknown> {
  const next: Record<string, unknown> = { ...payload, name: draft.name.trim(), dhType: draft.dhType, avatarJson: prettyJson(draft.avatarConfig) };
  if (draft.clientConfig) next.clientJson = prettyJson(draft.clientConfig);
  if (draft.avatarPhotoBase64) next.avatarPhotoBase64 = draft.avatarPhotoBase64;
  return next;
}

export const isSameDraft = (a: EditorDraft, b: EditorDraft) => JSON.stringify(a) === JSON.stringify(b);

export const isFullBody = (dhType: number) => dhType === DhType.FullBody3D;
export const isUpperBody = (dhType: number) => dhType === DhType.UpperBody3D;

export const SUCCESS_TOAST_MS = 2000;
export const ERROR_TOAST_MS = 4000;
