import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { useForm, type FieldErrors, type Resolver, type UseFormReturn } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { AvatarMessages, NlpEngine, SetupMode } from '@persona/contract';
import { closeToast, showToast } from '../../../../lib/toast';
import { useSaveAvatar } from '../../api/save-avatar';
import { applyBrainValues, brainIssues, brainValuesOf, type BrainValues } from '../../lib/brain-form';
import { refineSpeech } from '../../lib/speech-form';
import { advancedSchema, advancedValuesOf, applyAdvancedValues, NEW_AVATAR_DEFAULTS, type AdvancedValues } from '../../lib/advanced-form';
import { parentConfigOf, prettyJson, type TAvatarConfig } from '../../lib/avatar-config';
import { applyDraft, draftOf, ERROR_TOAST_MS, isSameDraft, storedPayload, SUCCESS_TOAST_MS, type BrainSubTab, type EditorDraft, type EditorTab } from '../../lib/editor-model';
import { isSelfHosted, productOriginOf } from '../../lib/hosting';
import { saveFailureOf } from '../../lib/save-errors';
import type { TAvatar } from '@persona/contract';

export type EditorMode = { kind: 'none' } | { kind: 'create' } | { kind: 'edit'; id: number };

export const TAB_CONFIRM_TEXT: Record<EditorTab, (name: string) => string> = {
  appearance: (name) => `Update the appearance of ${name}? The new look is used everywhere the avatar is embedded.`,
  environment: (name) => `Update the environment of ${name}: background, colour, lighting and 3D scene?`,
  brain: (name) => `Update the brain of ${name}: its mode, engine and engine settings? Live sessions use them from the next conversation.`,
  advanced: (name) => `Update the advanced settings of ${name}: limits, idle timeout, interruptions and voice activity detection?`,
  embed: (name) => `Update the avatar/environment and client configuration of ${name}? Embedded avatars use it the next time they load.`,
};

export interface EditorSession {
  mode: EditorMode;
  /** The avatar being edited, as last saved (edit mode). */
  agent: TAvatar | undefined;
  draft: EditorDraft;
  updateDraft: (patch: Partial<EditorDraft> | ((draft: EditorDraft) => Partial<EditorDraft>)) => void;
  advancedForm: UseFormReturn<AdvancedValues>;
  /** The Brain tab's form: Foundations, the speech groups and the sub-tabs' links (lib/brain-form.ts). */
  brainForm: UseFormReturn<BrainValues>;
  isAdminProxy: boolean;
  isDirty: boolean;
  isSaving: boolean;
  tab: EditorTab;
  /** Validates the current tab, then switches. */
  changeTab: (tab: EditorTab) => Promise<boolean>;
  /** The Brain tab's sub-tab: FOUNDATIONS whenever the Brain tab opens, and when its errors stop a save or a tab change. */
  brainSubTab: BrainSubTab;
  setBrainSubTab: (subTab: BrainSubTab) => void;
  /** JSON editors report whether their text is a JSON object. */
  setJsonInvalid: (which: 'avatar' | 'client', isInvalid: boolean) => void;
  jsonInvalid: { avatar: boolean; client: boolean };
  /** Whether the create button was pressed without a selection (shows the field message). */
  hasTriedCreate: boolean;
  isAvatarSelfHosted: boolean;
  isClientSelfHosted: boolean;
  /** Asks 'Confirm Update' (edit) and saves; in create mode creates. Resolves true when saved. */
  requestSave: () => void;
  /** Saves without asking (the Unsaved Changes dialog's Save). */
  saveNow: (options?: { skipConfirm?: boolean }) => Promise<boolean>;
  create: () => Promise<TAvatar | null>;
  failure: 'limit' | 'stale' | null;
  dismissFailure: () => void;
  /** Version the editor loaded (sent with updates: an older one is StaleRequest). */
  loadedVersion: number | undefined;
  /** Media uploads/removals save right away and move the loaded version on. */
  acceptServerAgent: (agent: TAvatar) => void;
  dialogs: {
    confirmOpen: boolean;
    transferOpen: boolean;
    answerConfirm: (ok: boolean) => void;
    answerTransfer: (transfer: boolean | null) => void;
  };
}

/** The one toast of a save or create: its progress, then its outcome in its place. */
const SAVE_TOAST = 'avatar-save';

const SessionContext = createContext<EditorSession | null>(null);

export function useEditorSession(): EditorSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useEditorSession() outside EditorSessionProvider');
  return session;
}

/** The session, or null outside an editor (cards without an open editor). */
export function useOptionalEditorSession(): EditorSession | null {
  return useContext(SessionContext);
}

export interface EditorSessionProviderProps {
  mode: EditorMode;
  agent: TAvatar | undefined;
  initialAvatarConfig: TAvatarConfig;
  initialClientConfig: TAvatarConfig | null;
  isAdminProxy: boolean;
  onCreated: (agent: TAvatar) => void;
  children: ReactNode;
}

/** The speech forms' rules (lib/speech-form.ts, the contract's section 5 checks) as zod issues. */
const speechRules = z
  .object({ setupMode: z.number() })
  .loose()
  .superRefine((v, ctx) => refineSpeech(v as unknown as Parameters<typeof refineSpeech>[0], ctx));

/**
 * The Advanced form's rules for the mode chosen on the Brain tab, saved or not (speech to speech
 * has its own VAD group and no interruptions).
 */
const advancedResolvers = {
  speechToSpeech: zodResolver(advancedSchema(true)) as unknown as Resolver<AdvancedValues>,
  other: zodResolver(advancedSchema(false)) as unknown as Resolver<AdvancedValues>,
};
function advancedResolver(setupMode: () => number): Resolver<AdvancedValues> {
  return (values, context, options) => (setupMode() === SetupMode.SpeechToSpeech ? advancedResolvers.speechToSpeech : advancedResolvers.other)(values, context, options);
}

/** The Brain form's rules (lib/brain-form.ts and lib/speech-form.ts) as react-hook-form errors. */
function brainResolver(isRealtime: () => boolean): Resolver<BrainValues> {
  return (values) => {
    const issues = brainIssues(values, isRealtime());
    const speech = speechRules.safeParse(values);
    if (!speech.success) for (const issue of speech.error.issues) issues.push({ path: issue.path.map(String).join('.'), message: issue.message });
    if (issues.length === 0) return { values, errors: {} };
    const errors: Record<string, unknown> = {};
    for (const issue of issues) {
      const parts = issue.path.split('.');
      let cur = errors;
      for (const part of parts.slice(0, -1)) cur = (cur[part] ??= {}) as Record<string, unknown>;
      cur[parts.at(-1)!] ??= { type: 'custom', message: issue.message };
    }
    return { values: {}, errors: errors as FieldErrors<BrainValues> };
  };
}

const EMPTY_DRAFT: EditorDraft = { name: '', dhType: 0, avatarConfig: {}, clientConfig: null };

export function EditorSessionProvider({
  mode,
  agent,
  initialAvatarConfig,
  initialClientConfig,
  isAdminProxy,
  onCreated,
  children,
}: EditorSessionProviderProps) {
  const startDraft = useMemo(
    () => (agent && mode.kind === 'edit' ? draftOf(agent, initialAvatarConfig, initialClientConfig) : EMPTY_DRAFT),
    // The session starts once per avatar (the provider is keyed by it).
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [],
  );
  const [draft, setDraft] = useState<EditorDraft>(startDraft);
  const [savedDraft, setSavedDraft] = useState<EditorDraft>(startDraft);
  const [tab, setTab] = useState<EditorTab>('appearance');
  const [brainSubTab, setBrainSubTab] = useState<BrainSubTab>('foundations');
  const [jsonInvalid, setJsonInvalidState] = useState({ avatar: false, client: false });
  const [hasTriedCreate, setHasTriedCreate] = useState(false);
  const [failure, setFailure] = useState<'limit' | 'stale' | null>(null);
  const [loadedVersion, setLoadedVersion] = useState<number | undefined>(agent?.version);
  const [confirmOpen, setConfirmOpen] = useState(false);
  const [transferOpen, setTransferOpen] = useState(false);
  const confirmResolver = useRef<((ok: boolean) => void) | null>(null);
  const transferResolver = useRef<((answer: boolean | null) => void) | null>(null);
  const saveMutation = useSaveAvatar();
  const latestAgent = useRef(agent);
  latestAgent.current = agent;

  const advancedForm = useForm<AdvancedValues>({
    defaultValues: advancedValuesOf(agent ?? {}),
    // The Advanced tab follows the mode chosen on the Brain tab, saved or not.
    resolver: advancedResolver((): number => brainForm.getValues('setupMode')),
    mode: 'onTouched',
  });
  const isAdvancedDirty = advancedForm.formState.isDirty;
  const brainForm = useForm<BrainValues>({
    defaultValues: brainValuesOf(agent ?? {}),
    resolver: brainResolver(() => advancedForm.getValues('realtime')),
    mode: 'onTouched',
  });
  const isBrainDirty = brainForm.formState.isDirty;

  const productOrigin = productOriginOf(agent?.accessLink);
  const isAvatarSelfHosted = mode.kind === 'edit' && isSelfHosted(agent?.avatarConfigURL, productOrigin);
  const isClientSelfHosted = mode.kind === 'edit' && isSelfHosted(agent?.clientConfigURL, productOrigin);

  const isDirty = mode.kind === 'edit' && (!isSameDraft(draft, savedDraft) || isAdvancedDirty || isBrainDirty);

  const updateDraft = useCallback<EditorSession['updateDraft']>((patch) => {
    setDraft((current) => ({ ...current, ...(typeof patch === 'function' ? patch(current) : patch) }));
  }, []);

  const setJsonInvalid = useCallback((which: 'avatar' | 'client', isInvalid: boolean) => {
    setJsonInvalidState((current) => (current[which] === isInvalid ? current : { ...current, [which]: isInvalid }));
  }, []);

  const isTabValid = useCallback(
    async (which: EditorTab): Promise<boolean> => {
      if (which === 'advanced') return advancedForm.trigger();
      // An untouched brain is saved exactly as stored: its rules apply once it is edited.
      if (which === 'brain') return !brainForm.formState.isDirty || brainForm.trigger();
      if (which === 'embed') return !jsonInvalid.avatar && !jsonInvalid.client;
      if (which === 'appearance') return mode.kind !== 'edit' || draft.name.trim() !== '';
      return true;
    },
    [advancedForm, brainForm, jsonInvalid, mode.kind, draft.name],
  );

  const changeTab = useCallback(
    async (next: EditorTab) => {
      if (next === tab) return true;
      if (!(await isTabValid(tab))) {
        void showToast(AvatarMessages.someFieldsInvalidTabs, 'error', { autoHideDurationMs: ERROR_TOAST_MS, id: SAVE_TOAST });
        // The Brain form's fields with rules (engine and speech) are all on FOUNDATIONS.
        if (tab === 'brain') setBrainSubTab('foundations');
        return false;
      }
      if (next === 'brain') setBrainSubTab('foundations');
      setTab(next);
      return true;
    },
    [tab, isTabValid],
  );

  const acceptServerAgent = useCallback((saved: TAvatar) => setLoadedVersion(saved.version), []);

  const showFailure = useCallback((error: unknown) => {
    const failed = saveFailureOf(error);
    if (failed.kind === 'toast') void showToast(failed.message, 'error', { autoHideDurationMs: ERROR_TOAST_MS, id: SAVE_TOAST });
    else {
      // The outcome is a banner in the panel: the progress toast goes.
      void closeToast(SAVE_TOAST);
      setFailure(failed.kind);
    }
  }, []);

  const askConfirm = () =>
    new Promise<boolean>((resolve) => {
      confirmResolver.current = resolve;
      setConfirmOpen(true);
    });
  const askTransfer = () =>
    new Promise<boolean | null>((resolve) => {
      transferResolver.current = resolve;
      setTransferOpen(true);
    });

  /** Every tab's rules before an update; says what is wrong and where. */
  const validateAll = async (): Promise<boolean> => {
    if (!draft.name.trim()) {
      void showToast(AvatarMessages.nameRequired, 'error', { autoHideDurationMs: ERROR_TOAST_MS, id: SAVE_TOAST });
      setTab('appearance');
      return false;
    }
    if (!(await advancedForm.trigger())) {
      void showToast(AvatarMessages.invalidAdvanced, 'error', { autoHideDurationMs: ERROR_TOAST_MS, id: SAVE_TOAST });
      setTab('advanced');
      return false;
    }
    // Only an edited brain is checked (and written): one stored without a voice, for instance,
    // must not block saving the other tabs.
    if (brainForm.formState.isDirty && !(await brainForm.trigger())) {
      void showToast(AvatarMessages.someFieldsInvalidSubmit, 'error', { autoHideDurationMs: ERROR_TOAST_MS, id: SAVE_TOAST });
      setTab('brain');
      setBrainSubTab('foundations');
      return false;
    }
    if (jsonInvalid.avatar || jsonInvalid.client) {
      void showToast(AvatarMessages.jsonInvalid, 'error', { autoHideDurationMs: ERROR_TOAST_MS, id: SAVE_TOAST });
      setTab('embed');
      return false;
    }
    return true;
  };

  const saveNow = async ({ skipConfirm = false }: { skipConfirm?: boolean } = {}): Promise<boolean> => {
    const current = latestAgent.current;
    if (mode.kind !== 'edit' || !current) return false;
    if (!(await validateAll())) return false;
    if (!skipConfirm && !(await askConfirm())) return false;
    let transferConfigHosting = false;
    if (isAvatarSelfHosted || isClientSelfHosted) {
      const answer = await askTransfer();
      if (answer === null) return false;
      transferConfigHosting = answer;
    }
    const values = advancedForm.getValues();
    let payload = applyDraft({ ...storedPayload(current), version: loadedVersion }, draft);
    // Self-hosted files are not edited here: their URLs stay unless the hosting is transferred.
    if (isAvatarSelfHosted && !transferConfigHosting) delete payload.avatarJson;
    if (isClientSelfHosted && !transferConfigHosting) delete payload.clientJson;
    // The VAD group of the mode saved: the one chosen on the Brain tab (the stored one while it is untouched).
    payload = applyAdvancedValues(payload, values, brainForm.getValues('setupMode'));
    // The Brain form only when it was changed: an untouched brain is saved exactly as stored.
    if (brainForm.formState.isDirty) payload = applyBrainValues(payload, brainForm.getValues(), values.realtime);
    if (transferConfigHosting) payload.transferConfigHosting = true;
    void showToast('Updating...', 'info', { autoHideDurationMs: SUCCESS_TOAST_MS, id: SAVE_TOAST });
    try {
      const saved = await saveMutation.mutateAsync({ payload });
      const nextDraft = { ...draft, name: saved.name, avatarPhotoBase64: undefined };
      setDraft(nextDraft);
      setSavedDraft(nextDraft);
      advancedForm.reset(values);
      // Secrets come back masked from the server: the form shows the saved state.
      brainForm.reset(brainValuesOf(saved));
      setLoadedVersion(saved.version);
      setFailure(null);
      void showToast(AvatarMessages.updated, 'success', { autoHideDurationMs: SUCCESS_TOAST_MS, id: SAVE_TOAST });
      return true;
    } catch (error) {
      showFailure(error);
      return false;
    }
  };

  const create = async (): Promise<TAvatar | null> => {
    setHasTriedCreate(true);
    const parent = parentConfigOf(draft.avatarConfig);
    if (!parent || !draft.dhType) {
      void showToast(AvatarMessages.selectToast, 'error', { autoHideDurationMs: ERROR_TOAST_MS, id: SAVE_TOAST });
      return null;
    }
    if (!draft.name.trim()) {
      void showToast(AvatarMessages.nameRequired, 'error', { autoHideDurationMs: ERROR_TOAST_MS, id: SAVE_TOAST });
      return null;
    }
    const payload = {
      name: draft.name.trim(),
      nlpEngine: NlpEngine.EchoTest,
      dhType: draft.dhType,
      setupMode: SetupMode.Simple,
      wakeUpMessage: NEW_AVATAR_DEFAULTS.wakeUpMessage,
      dailyLimitPerSession: NEW_AVATAR_DEFAULTS.dailyLimitPerSession,
      dailyLimitPerIP: NEW_AVATAR_DEFAULTS.dailyLimitPerIP,
      dailyLimits: { Demo: NEW_AVATAR_DEFAULTS.demoLimit },
      idleTimeout: NEW_AVATAR_DEFAULTS.idleTimeout,
      avatarJson: prettyJson(draft.avatarConfig),
    };
    void showToast('Creating...', 'info', { autoHideDurationMs: SUCCESS_TOAST_MS, id: SAVE_TOAST });
    try {
      const created = await saveMutation.mutateAsync({ payload });
      setFailure(null);
      void showToast(AvatarMessages.created, 'success', { autoHideDurationMs: SUCCESS_TOAST_MS, id: SAVE_TOAST });
      onCreated(created);
      return created;
    } catch (error) {
      showFailure(error);
      return null;
    }
  };

  const requestSave = () => {
    if (mode.kind === 'create') void create();
    else void saveNow();
  };

  // Closing or reloading the browser tab with unsaved changes asks first.
  useEffect(() => {
    if (!isDirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      event.returnValue = '';
    };
    window.addEventListener('beforeunload', onBeforeUnload);
    return () => window.removeEventListener('beforeunload', onBeforeUnload);
  }, [isDirty]);

  const value: EditorSession = {
    mode,
    agent,
    draft,
    updateDraft,
    advancedForm,
    brainForm,
    isAdminProxy,
    isDirty,
    isSaving: saveMutation.isPending,
    tab,
    changeTab,
    brainSubTab,
    setBrainSubTab,
    setJsonInvalid,
    jsonInvalid,
    hasTriedCreate,
    isAvatarSelfHosted,
    isClientSelfHosted,
    requestSave,
    saveNow,
    create,
    failure,
    dismissFailure: () => setFailure(null),
    loadedVersion,
    acceptServerAgent,
    dialogs: {
      confirmOpen,
      transferOpen,
      answerConfirm: (ok) => {
        setConfirmOpen(false);
        confirmResolver.current?.(ok);
        confirmResolver.current = null;
      },
      answerTransfer: (answer) => {
        setTransferOpen(false);
        transferResolver.current?.(answer);
        transferResolver.current = null;
      },
    },
  };

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
