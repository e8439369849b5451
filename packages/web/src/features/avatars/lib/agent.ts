import type { TAvatar, TDhType, TMediaDetails, TNlpEngine, TSetupMode } from '@persona/contract';

/**
 * The avatar as list_avatar returns it, with its fields typed. (The contract's TAvatar is built
 * with Omit over a loose object, which keeps only its index signature for the input fields.)
 */
export type TAgent = TAvatar & {
  id: number;
  version: number;
  name: string;
  nlpEngine: TNlpEngine;
  nlpEngineName: string;
  dhType: TDhType;
  dhTypeName: string;
  setupMode: TSetupMode;
  usersCount: number;
  created: string;
  updated: string;
  wakeUpMessage?: string;
  dailyLimitPerSession?: number | string;
  dailyLimitPerIP?: number | string;
  dailyLimits?: { Demo?: number | string };
  idleTimeout?: number | string;
  sendChatHistory?: boolean;
  handleSttResponse?: boolean;
  realtime?: boolean;
  encKeyId?: number | null;
  encKey?: { id: number; name: string; defaultKey?: boolean } | null;
  avatarConfigURL?: string;
  clientConfigURL?: string;
  avatarJson?: string;
  clientJson?: string;
  functions?: number[];
  customData?: Record<string, unknown>;
  mediaDetails: TMediaDetails;
  avatarPhotoURL?: string;
  accessLink: string;
  token?: string;
};
