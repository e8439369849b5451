import { FrameFigures } from '../page-figures';
import type { TAvatarAction } from '@persona/contract';
import type { AvatarAudio } from '../audio/avatar-audio';
import { softBackdrop } from './backdrop';
import { FaceDriver, type Pose } from './face-driver';
import type { AvatarRenderer } from './renderer';
import { readStageConfig, resolveConfigChain, type StageConfig } from './stage-config';
import { createProbe, holdFace, recordAction, recordFrame, resetFps, type AvatarProbe, type FaceHold } from './test-hook';
import { VisemeTimeline } from './viseme-timeline';
import type { AudioLipSync } from './lip-sync-audio';
import type * as ThreeAvatar from './three-avatar';
import { audioMouth } from './audio-mouth';
import { RenderScaleController } from './render-scale';

type ThreeModule = typeof ThreeAvatar;

/** Frame interval of a silent avatar when the visitor prefers reduced motion. */
export const REDUCED_MOTION_IDLE_FRAME_MS = 250;

export interface StageSource {
  /** The avatar config JSON (root of the ParentConfig chain); null: none. */
  avatarConfigUrl: string | null;
  dhType: number;
  photoUrl: string | null;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = cls;
  return node;
}

/** WebGL (for 3D kinds) is there: without it the page keeps the photo and the speaking ring. */
export function hasWebGL(): boolean {
  try {
    const c = document.createElement('canvas');
    return Boolean(c.getContext('webgl2') ?? c.getContext('webgl'));
  } catch {
    return false;
  }
}

/**
 * The avatar on screen: the background the config asks for (colour, image, video, or nothing
 * when transparent), the renderer for its kind (a 2D portrait or talking photo on a canvas, or
 * three.js — imported only for 3D kinds), subtitles from the words being heard, and one frame
 * loop that turns the audio clock, the viseme timelines and idle life into the face.
 */
export class AvatarStage {
  readonly root = el('div', 'ps-scene');
  private readonly backdrop = el('div', 'ps-backdrop');
  readonly layer = el('div', 'ps-layer');
  private readonly subtitle = el('p', 'ps-subtitle');
  private renderer: AvatarRenderer | null = null;
  private config: StageConfig | null = null;
  private readonly driver = new FaceDriver(Math.floor(Math.random() * 1e9));
  private readonly timelines = new Map<number, VisemeTimeline>();
  private readonly words = new Map<number, { t: number; d: number; w: string }[]>();
  private readonly texts = new Map<number, string>();
  /** Avatar actions waiting for their moment in an utterance's voice, by utterance. */
  private readonly timedActions = new Map<number, { t: number; action: TAvatarAction }[]>();
  private pose: Pose = 'idle';
  private raf = 0;
  private observer: ResizeObserver | null = null;
  private audio: AvatarAudio | null = null;
  private lipSync: AudioLipSync | null = null;
  /** The audio context the classifier listens in (a new one is made when the session's rate changes). */
  private lipSyncContext: AudioContext | null = null;
  private lipSyncLoading = false;
  private lastFrame = 0;
  private subtitleUtt: number | null = null;
  private subtitleHideAt = 0;
  readonly probe: AvatarProbe;
  /** The page's own figures for the session (ADR 099): first frame, A/V offset, dropped frames. */
  readonly figures = new FrameFigures();
  private disposed = false;
  /** The visitor asked for less motion: the silent avatar is redrawn a few times a second, not at the display's rate. */
  private readonly reducedMotion = typeof matchMedia === 'function' ? matchMedia('(prefers-reduced-motion: reduce)') : null;
  private lastDrawn = Number.NEGATIVE_INFINITY;
  /** The test hook's held face (screenshots and checks of a viseme, a blink), if any. */
  private hold: FaceHold | null = null;
  /** The adaptive resolution (renderers that pay per pixel: three.js), pinned while a face is held. */
  private readonly scale = new RenderScaleController();

  constructor(private readonly source: StageSource) {
    this.probe = createProbe(source.dhType === 3 ? 'full' : source.dhType === 2 ? 'upper' : 'image');
    this.probe.probe = () => this.startMetering();
    this.probe.hold = (hold) => {
      this.hold = hold;
      if (hold?.mood) this.driver.setMood(hold.mood);
      // Applied by the next frame, before it draws (resizing a canvas clears it).
      this.scale.pin(hold ? (hold.renderScale ?? 1) : null);
    };
    this.subtitle.setAttribute('aria-hidden', 'true');
    this.subtitle.hidden = true;
    this.root.append(this.backdrop, this.layer, this.subtitle);
  }

  /** Loads the config and the renderer; false when the page should keep its DOM fallback. */
  async load(): Promise<boolean> {
    try {
      // A 3D kind's renderer (three.js, its chunks) is fetched while the config chain loads, not after it.
      const three = (this.source.dhType === 2 || this.source.dhType === 3) && hasWebGL() ? import('./three-avatar') : null;
      three?.catch(() => undefined);
      const doc = this.source.avatarConfigUrl ? await resolveConfigChain(new URL(this.source.avatarConfigUrl, window.location.href).toString()) : {};
      const config = readStageConfig(doc, this.source.dhType, window.location.href, this.source.photoUrl);
      this.config = config;
      this.applyBackground(config);
      this.renderer = await this.createRenderer(config, three);
      if (!this.renderer || this.disposed) {
        this.probe.renderer = 'dom';
        return false;
      }
      this.layer.append(this.renderer.canvas);
      this.probe.renderer = this.renderer.name;
      this.observer = new ResizeObserver(() => this.resize());
      this.observer.observe(this.root);
      this.resize();
      this.applyScale(this.scale.scale);
      resetFps();
      this.raf = requestAnimationFrame((t) => this.frame(t));
      return true;
    } catch (err) {
      this.probe.error = err instanceof Error ? err.message : String(err);
      this.probe.renderer = 'dom';
      return false;
    }
  }

  get stageConfig(): StageConfig | null {
    return this.config;
  }

  private async createRenderer(config: StageConfig, three: Promise<ThreeModule> | null): Promise<AvatarRenderer | null> {
    if (config.kind !== 'image') {
      if (!config.model || !hasWebGL()) return null;
      const { createThreeRenderer } = await (three ?? import('./three-avatar'));
      return createThreeRenderer(config, { onContextLost: () => this.fallBack('WebGL context lost') });
    }
    if (config.portrait) {
      const { createPortraitRenderer } = await import('./portrait-2d');
      return createPortraitRenderer(config.portrait, { showBackdrop: !config.background.transparent && !config.background.image && !config.background.video });
    }
    if (config.photo) {
      const { createPhotoRenderer } = await import('./photo-2d');
      return createPhotoRenderer(config.photo.url, config.photo.landmarks);
    }
    return null;
  }

  private fallBack(reason: string) {
    this.probe.error = reason;
    cancelAnimationFrame(this.raf);
    this.renderer?.dispose();
    this.renderer = null;
    this.probe.renderer = 'dom';
    this.root.dispatchEvent(new CustomEvent('ps-fallback'));
  }

  private applyBackground(config: StageConfig) {
    const bg = config.background;
    this.root.dataset.transparent = String(bg.transparent);
    this.backdrop.replaceChildren();
    this.backdrop.style.background = bg.transparent ? 'transparent' : softBackdrop(bg.color);
    if (bg.image) {
      const img = document.createElement('img');
      img.alt = '';
      img.src = bg.image;
      this.backdrop.append(img);
    } else if (bg.video) {
      const video = document.createElement('video');
      video.src = bg.video;
      video.muted = true;
      video.loop = true;
      video.autoplay = true;
      video.playsInline = true;
      video.setAttribute('aria-hidden', 'true');
      void video.play().catch(() => undefined);
      this.backdrop.append(video);
    }
  }

  /** Draws the next frames at `scale` (renderers that can), and says so on the test hook. */
  private applyScale(scale: number) {
    if (!this.renderer?.setRenderScale || scale === this.probe.renderScale) return;
    this.renderer.setRenderScale(scale);
    this.probe.renderScale = scale;
  }

  private resize() {
    const r = this.root.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) this.renderer?.resize(Math.round(r.width), Math.round(r.height));
  }

  /** The player whose clock drives the mouth. */
  attachAudio(audio: AvatarAudio) {
    this.audio = audio;
    if (this.metering) this.meter = audio.levelMeter();
  }

  /** The test hook's `probe()`: meter what is heard from now on (from when audio attaches). */
  private startMetering() {
    this.metering = true;
    this.probe.levels = [];
    this.meter = this.audio?.levelMeter() ?? null;
  }

  private metering = false;
  private meter: (() => number) | null = null;

  setPose(state: string) {
    this.pose = state === 'speaking' || state === 'listening' || state === 'thinking' ? state : 'idle';
  }

  private timeline(utt: number): VisemeTimeline {
    let tl = this.timelines.get(utt);
    if (!tl) {
      tl = new VisemeTimeline();
      this.timelines.set(utt, tl);
      while (this.timelines.size > 16) this.timelines.delete(this.timelines.keys().next().value!);
    }
    return tl;
  }

  addVisemes(utt: number, items: { t: number; v: string; d?: number }[]) {
    this.timeline(utt).add(items);
  }

  addWords(utt: number, items: { t: number; d: number; w: string }[]) {
    const list = this.words.get(utt) ?? [];
    list.push(...items.filter((w) => Number.isFinite(w.t) && typeof w.w === 'string').map((w) => ({ t: w.t, d: w.d, w: w.w.slice(0, 60) })));
    list.sort((a, b) => a.t - b.t);
    this.words.set(utt, list.slice(-400));
    while (this.words.size > 16) this.words.delete(this.words.keys().next().value!);
  }

  /** The assistant's text for an utterance (subtitles when no word timings come). */
  setText(utt: number, text: string) {
    this.texts.set(utt, text);
    while (this.texts.size > 16) this.texts.delete(this.texts.keys().next().value!);
  }

  /**
   * An avatar action, now: a mood or a gesture goes to the face driver (smile, brows, gaze, head),
   * an `anim` or `morph` to the renderer (an uploaded model's own clips and targets); every kind —
   * the other tags too, which nothing draws yet — is recorded on the test hook.
   */
  act(action: TAvatarAction) {
    const now = performance.now();
    recordAction(this.probe, now, action);
    if (action.kind === 'mood') this.driver.setMood(action.mood, action.intensity, action.durationMs);
    else if (action.kind === 'gesture') this.driver.playGesture(action.gesture, action.intensity);
    else if (action.kind === 'anim' || action.kind === 'morph') this.renderer?.act?.(action, now);
  }

  /** An avatar action at `t` ms of utterance `utt`'s voice: done when the player reaches it. */
  actAt(utt: number, t: number, action: TAvatarAction) {
    const list = this.timedActions.get(utt) ?? [];
    if (list.length >= 64) return;
    list.push({ t, action });
    list.sort((a, b) => a.t - b.t);
    this.timedActions.set(utt, list);
    while (this.timedActions.size > 16) this.timedActions.delete(this.timedActions.keys().next().value!);
  }

  /** Does the actions of `utt` due at `ms` (all of them with `ms` Infinity). */
  private actDue(utt: number, ms: number) {
    const list = this.timedActions.get(utt);
    if (!list) return;
    while (list.length && list[0]!.t <= ms) this.act(list.shift()!.action);
    if (!list.length) this.timedActions.delete(utt);
  }

  /** The utterance was cut at `heardMs`: its mouth closes from there, and what it did not reach is not done. */
  interrupt(utt: number, heardMs: number) {
    this.timelines.get(utt)?.interrupt(heardMs);
    this.actDue(utt, heardMs);
    this.timedActions.delete(utt);
  }

  /** Its audio ended after `playedMs`: a timeline estimated from text is fitted to it. */
  ended(utt: number, playedMs: number, interrupted: boolean) {
    if (interrupted) this.timelines.get(utt)?.interrupt(playedMs);
    // Heard to its end: what comes after its last word (a wave goodbye) is done now.
    this.actDue(utt, interrupted ? playedMs : Number.POSITIVE_INFINITY);
    this.timedActions.delete(utt);
    this.subtitleHideAt = performance.now() + 1200;
  }

  private async startAudioLipSync() {
    const context = this.audio?.context;
    if (this.lipSync && this.lipSyncContext !== context) {
      // The player was rebuilt: the classifier still listens to the closed context.
      this.lipSync.dispose();
      this.lipSync = null;
    }
    if (this.lipSync || this.lipSyncLoading || !context || !this.audio?.source) return;
    this.lipSyncLoading = true;
    try {
      const { createAudioLipSync } = await import('./lip-sync-audio');
      const lipSync = await createAudioLipSync(context, this.audio.source);
      // Rebuilt again while it loaded: this one listens to nothing.
      if (this.audio.context !== context) lipSync.dispose();
      else {
        this.lipSync = lipSync;
        this.lipSyncContext = context;
      }
    } catch (err) {
      this.probe.error = `audio lip-sync: ${err instanceof Error ? err.message : String(err)}`;
    } finally {
      this.lipSyncLoading = false;
    }
  }

  private frame(now: number) {
    if (this.disposed || !this.renderer) return;
    this.raf = requestAnimationFrame((t) => this.frame(t));
    const heard = this.audio?.now() ?? null;
    if (heard) this.actDue(heard.utt, heard.ms);
    // With reduced motion, idle life (sway, breathing, blinks) is drawn at a few frames a second:
    // less movement on screen, and far less work (a 3D avatar drawn by a software WebGL takes a
    // whole core at the display's rate). Speech is always drawn at full rate.
    if (this.reducedMotion?.matches && !heard && now - this.lastDrawn < REDUCED_MOTION_IDLE_FRAME_MS) {
      // Not a slow machine: frames left out on purpose.
      this.scale.interrupt();
      return;
    }
    this.lastDrawn = now;
    const dt = this.lastFrame ? now - this.lastFrame : 16;
    this.lastFrame = now;
    let speech: Float32Array | null = null;
    this.probe.lipSync = 'none';
    if (heard) {
      const tl = this.timelines.get(heard.utt);
      if (tl && tl.size > 0) {
        speech = tl.weightsAt(heard.ms);
        this.probe.lipSync = 'timeline';
      } else {
        // No visemes for what is playing: the mouth opens with the level of the audio heard now
        // (measured as it arrived), shaped by the classifier listening to it once that is loaded.
        void this.startAudioLipSync();
        speech = audioMouth(this.audio?.openAt(heard.utt, heard.ms) ?? 0, this.lipSync?.weights(dt) ?? null);
        this.probe.lipSync = 'audio';
      }
    }
    const pose = heard ? 'speaking' : this.pose === 'speaking' ? 'idle' : this.pose;
    const face = this.driver.update(now, speech, pose);
    if (this.hold) holdFace(face, this.hold);
    // The scale from the frames before this one, set before drawing: resizing the canvas clears it.
    if (this.renderer.setRenderScale) this.applyScale(this.scale.frame(now));
    this.renderer.render(face, now);
    this.updateSubtitle(heard, now);
    this.probe.route = this.audio?.route ?? null;
    recordFrame(this.probe, now, face, this.renderer.targets, heard, pose);
    this.probe.clips = this.renderer.playing?.() ?? [];
    this.figures.frame(now, heard);
    // The player's graph exists only once audio has started (and is rebuilt with a new context):
    // a meter asked for earlier is made on the first frame that can have one.
    if (this.metering && !this.meter) this.meter = this.audio?.levelMeter() ?? null;
    if (this.meter) {
      this.probe.levels.push({ t: now, rms: Math.round(this.meter() * 10_000) / 10_000 });
      if (this.probe.levels.length > 1200) this.probe.levels.splice(0, this.probe.levels.length - 1200);
    }
  }

  private updateSubtitle(heard: { utt: number; ms: number } | null, now: number) {
    if (!this.config?.subtitles) return;
    if (heard) {
      this.subtitleUtt = heard.utt;
      const words = this.words.get(heard.utt);
      let text: string;
      if (words?.length) {
        const said = words.filter((w) => w.t <= heard.ms);
        // The current sentence, at most the last 14 words.
        let start = 0;
        for (let i = 0; i < said.length - 1; i++) if (/[.!?]$/.test(said[i]!.w)) start = i + 1;
        text = said.slice(Math.max(start, said.length - 14)).map((w) => w.w).join(' ');
      } else {
        text = this.texts.get(heard.utt) ?? '';
      }
      if (this.subtitle.textContent !== text) this.subtitle.textContent = text;
      this.subtitle.hidden = !text;
      this.subtitleHideAt = now + 1200;
    } else if (this.subtitleUtt !== null && now > this.subtitleHideAt) {
      this.subtitle.hidden = true;
      this.subtitleUtt = null;
    }
  }

  dispose() {
    this.disposed = true;
    cancelAnimationFrame(this.raf);
    this.observer?.disconnect();
    this.lipSync?.dispose();
    this.renderer?.dispose();
    this.root.remove();
  }
}
