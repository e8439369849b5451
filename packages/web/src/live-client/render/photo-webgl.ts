import type { FaceState } from './face-driver';
import { COLOUR_STRIDE, TEXTURED_STRIDE, clipTransform, holeFeather, lidVertices, meshDrawOrder, meshVertices, quad } from './photo-gl-buffers';
import { deformMesh, jawDrop, mouthHole } from './photo-mesh';
import { boxOnCanvas, meshPose, type Framing, type PhotoParts, type PhotoWindow } from './photo-parts';
import { sizeCanvas, type AvatarRenderer } from './renderer';

type Program = { p: WebGLProgram; xform: WebGLUniformLocation | null };

/** A WebGL context for the photo with its two programs compiling (no answer is waited for). */
export interface PhotoWebGlStart {
  canvas: HTMLCanvasElement;
  gl: WebGLRenderingContext;
  programs: { textured: Program; colour: Program };
}

const VERTEX = 'attribute vec2 a_pos; uniform vec4 u_xform; vec4 place() { return vec4(a_pos * u_xform.xy + u_xform.zw, 0.0, 1.0); }';

/** Compiles and links the textured (photo, cover, mouth) and colour (lids) programs; checked later. */
function compile(g: WebGLRenderingContext) {
  const program = (vs: string, fs: string, attributes: string[]): Program => {
    const p = g.createProgram()!;
    for (const [type, src] of [
      [g.VERTEX_SHADER, vs],
      [g.FRAGMENT_SHADER, fs],
    ] as const) {
      const sh = g.createShader(type)!;
      g.shaderSource(sh, src);
      g.compileShader(sh);
      g.attachShader(p, sh);
    }
    attributes.forEach((name, i) => g.bindAttribLocation(p, i, name));
    g.linkProgram(p);
    return { p, xform: null };
  };
  return {
    textured: program(
      `${VERTEX} attribute vec2 a_uv; attribute float a_alpha; varying vec2 v_uv; varying float v_alpha; void main() { v_uv = a_uv; v_alpha = a_alpha; gl_Position = place(); }`,
      'precision mediump float; uniform sampler2D u_tex; varying vec2 v_uv; varying float v_alpha; void main() { gl_FragColor = texture2D(u_tex, v_uv) * v_alpha; }',
      ['a_pos', 'a_uv', 'a_alpha'],
    ),
    colour: program(`${VERTEX} attribute vec4 a_col; varying vec4 v_col; void main() { v_col = a_col; gl_Position = place(); }`, 'precision mediump float; varying vec4 v_col; void main() { gl_FragColor = v_col; }', ['a_pos', 'a_col']),
  };
}

/**
 * Starts WebGL for a talking photo: the context and its shaders, begun while the photo loads (on a
 * software GPU the context and the compile take a good part of the first frame's time). Null
 * when the page has no WebGL.
 */
export function startPhotoWebGl(canvas: HTMLCanvasElement): PhotoWebGlStart | null {
  let gl: WebGLRenderingContext | null = null;
  try {
    gl = canvas.getContext('webgl', { alpha: false, antialias: false, depth: false, stencil: false, premultipliedAlpha: true, preserveDrawingBuffer: true });
  } catch {
    gl = null;
  }
  return gl ? { canvas, gl, programs: compile(gl) } : null;
}

/**
 * The talking photo drawn with WebGL (ADR 091, "WebGL, stop 39"): the blurred cover and the
 * framed photo are drawn once per stage size and kept (the drawing buffer is preserved); each
 * frame redraws only the box the face can move in — the photo under it, the painted mouth
 * interior (a small 2D canvas in the renderer's memory, uploaded as a texture while the mouth is
 * open), the warped mesh in one textured draw, the closing lids' tint and lash line. A triangle
 * is one rasterised triangle, not a clip path: on a software GPU (SwiftShader) this is what the
 * 2D canvas could not do at 30 fps. Null when its shaders do not build (the 2D canvas draws
 * it then).
 */
export function createPhotoWebGl(started: PhotoWebGlStart, parts: PhotoParts): AvatarRenderer | null {
  const { canvas, gl: g } = started;
  const { mesh, region } = parts;
  const win = window as unknown as PhotoWindow;
  const targets = new Map<string, number>();
  const pos = mesh ? new Float32Array(mesh.rest.length) : null;
  const vertices = mesh ? new Float32Array((mesh.rest.length / 2) * TEXTURED_STRIDE) : null;
  const order = mesh ? meshDrawOrder(mesh) : null;
  // The mouth's inside is painted on the CPU (a few gradients in a box the size of the mouth), then uploaded.
  const mouth = document.createElement('canvas');
  const mctx = mouth.getContext('2d', { willReadFrequently: true })!;
  const photoQuad = quad(0, 0, parts.width, parts.height);
  let dpr = 1;
  let width = 1;
  let height = 1;
  let drawnKey = '';

  type Gl = ReturnType<typeof init>;
  let r: Gl | null = null;
  let programs = started.programs;
  function init() {
    for (const program of [programs.textured, programs.colour]) {
      if (!g.getProgramParameter(program.p, g.LINK_STATUS) && !g.isContextLost()) throw new Error(`talking photo: shader did not link (${g.getProgramInfoLog(program.p)})`);
      program.xform = g.getUniformLocation(program.p, 'u_xform');
    }
    const { textured, colour } = programs;
    const texture = (source: TexImageSource | null) => {
      const t = g.createTexture()!;
      g.bindTexture(g.TEXTURE_2D, t);
      // Any size (WebGL 1: no mipmaps, clamped), bilinear as the 2D canvas draws.
      g.texParameteri(g.TEXTURE_2D, g.TEXTURE_MIN_FILTER, g.LINEAR);
      g.texParameteri(g.TEXTURE_2D, g.TEXTURE_MAG_FILTER, g.LINEAR);
      g.texParameteri(g.TEXTURE_2D, g.TEXTURE_WRAP_S, g.CLAMP_TO_EDGE);
      g.texParameteri(g.TEXTURE_2D, g.TEXTURE_WRAP_T, g.CLAMP_TO_EDGE);
      if (source) g.texImage2D(g.TEXTURE_2D, 0, g.RGBA, g.RGBA, g.UNSIGNED_BYTE, source);
      return t;
    };
    g.pixelStorei(g.UNPACK_PREMULTIPLY_ALPHA_WEBGL, true);
    const meshBuffer = g.createBuffer()!;
    const meshIndex = g.createBuffer()!;
    if (vertices && order) {
      g.bindBuffer(g.ARRAY_BUFFER, meshBuffer);
      g.bufferData(g.ARRAY_BUFFER, vertices.byteLength, g.DYNAMIC_DRAW);
      g.bindBuffer(g.ELEMENT_ARRAY_BUFFER, meshIndex);
      g.bufferData(g.ELEMENT_ARRAY_BUFFER, order, g.STATIC_DRAW);
    }
    g.disable(g.DEPTH_TEST);
    g.blendFunc(g.ONE, g.ONE_MINUS_SRC_ALPHA);
    return { textured, colour, photo: texture(parts.faded), blurred: texture(parts.blurred), mouth: texture(null), meshBuffer, meshIndex, scratch: g.createBuffer()! };
  }

  /** Binds a buffer's interleaved layout to the program's attributes (x, y + the rest). */
  const layout = (buffer: WebGLBuffer, stride: number, sizes: number[]) => {
    g.bindBuffer(g.ARRAY_BUFFER, buffer);
    let offset = 8;
    g.enableVertexAttribArray(0);
    g.vertexAttribPointer(0, 2, g.FLOAT, false, stride * 4, 0);
    sizes.forEach((size, k) => {
      g.enableVertexAttribArray(k + 1);
      g.vertexAttribPointer(k + 1, size, g.FLOAT, false, stride * 4, offset);
      offset += size * 4;
    });
    for (let k = sizes.length + 1; k < 3; k++) g.disableVertexAttribArray(k);
  };
  /** Triangles of the textured program from the scratch buffer. */
  const drawTextured = (gr: Gl, tex: WebGLTexture, data: Float32Array, xform: number[], blend: boolean) => {
    g.useProgram(gr.textured.p);
    g.uniform4fv(gr.textured.xform, xform);
    g.bindTexture(g.TEXTURE_2D, tex);
    g.bindBuffer(g.ARRAY_BUFFER, gr.scratch);
    g.bufferData(g.ARRAY_BUFFER, data, g.STREAM_DRAW);
    layout(gr.scratch, TEXTURED_STRIDE, [2, 1]);
    if (blend) g.enable(g.BLEND);
    else g.disable(g.BLEND);
    g.drawArrays(g.TRIANGLES, 0, data.length / TEXTURED_STRIDE);
  };
  /** The stage without the face's motion: the blurred photo covering it, the photo framed over it. */
  const drawStill = (gr: Gl, t: Framing) => {
    const cover = Math.max(width / parts.width, height / parts.height) * 1.1;
    const w = parts.width * cover;
    const h = parts.height * cover;
    drawTextured(gr, gr.blurred, quad((width - w) / 2, (height - h) / 2, w, h), clipTransform({ scale: 1, x: 0, y: 0 }, width, height), false);
    drawTextured(gr, gr.photo, photoQuad, clipTransform(t, width, height), true);
  };

  canvas.addEventListener('webglcontextlost', (e) => {
    // Kept: the browser gives the context back (restored below) and the photo is drawn again.
    e.preventDefault();
    r = null;
  });
  canvas.addEventListener('webglcontextrestored', () => {
    try {
      programs = compile(g);
      r = init();
    } catch {
      r = null;
    }
    drawnKey = '';
  });
  try {
    r = init();
  } catch {
    // A shader this WebGL cannot build: the 2D canvas draws the photo instead.
    return null;
  }

  return {
    name: 'photo',
    canvas,
    targets,
    resize(w, h) {
      width = w;
      height = h;
      dpr = sizeCanvas(canvas, w, h);
      g.viewport(0, 0, canvas.width, canvas.height);
      // (A resized drawing buffer is cleared: the still stage is drawn again.)
      drawnKey = '';
    },
    render(face: FaceState) {
      const gr = r;
      if (!gr || g.isContextLost()) return;
      const hold = win.__personaPhotoHold ?? null;
      const t = parts.frame(width, height, face.breath);
      const xform = clipTransform(t, width, height);
      targets.clear();
      const key = `${canvas.width}x${canvas.height}@${dpr}`;
      if (!mesh || !pos || !vertices || !order) {
        // Without landmarks the whole photo breathes: every frame is drawn whole.
        drawStill(gr, t);
        return;
      }
      // The still stage is drawn once per size and kept; each frame redraws the face's box only.
      if (key !== drawnKey) {
        drawnKey = key;
        g.disable(g.SCISSOR_TEST);
      } else {
        const b = boxOnCanvas(region, t, dpr, canvas.width, canvas.height);
        g.enable(g.SCISSOR_TEST);
        g.scissor(b.x, canvas.height - b.y - b.h, b.w, b.h);
      }
      drawStill(gr, t);
      const pose = meshPose(face, hold);
      deformMesh(mesh, pose, pos);
      targets.set('jawOpen', pose.open);
      targets.set('blink', Math.max(pose.blinkLeft, pose.blinkRight));
      // The mouth's inside, under the mesh (the mesh's hole shows it), at up to 3× the photo's resolution.
      const isOpen = pose.open * jawDrop(mesh) > 0.2;
      const px = 1 / Math.max(0.01, t.scale * dpr);
      if (isOpen) {
        const hole = mouthHole(mesh, pos);
        const k = Math.min(3, Math.max(1, Math.round(t.scale * dpr * 4) / 4));
        const x0 = Math.floor(Math.min(...hole.map((p) => p[0]))) - 2;
        const y0 = Math.floor(Math.min(...hole.map((p) => p[1]))) - 2;
        const bw = Math.ceil(Math.max(...hole.map((p) => p[0]))) + 2 - x0;
        const bh = Math.ceil(Math.max(...hole.map((p) => p[1]))) + 2 - y0;
        const cw = Math.ceil(bw * k);
        const ch = Math.ceil(bh * k);
        // The canvas only grows (a new size each frame would reallocate it).
        if (cw > mouth.width || ch > mouth.height) {
          mouth.width = Math.max(mouth.width, cw);
          mouth.height = Math.max(mouth.height, ch);
        }
        mctx.setTransform(1, 0, 0, 1, 0, 0);
        mctx.clearRect(0, 0, cw + 1, ch + 1);
        mctx.setTransform(k, 0, 0, k, -x0 * k, -y0 * k);
        parts.paintMouth(mctx, hole, pose);
        g.bindTexture(g.TEXTURE_2D, gr.mouth);
        g.texImage2D(g.TEXTURE_2D, 0, g.RGBA, g.RGBA, g.UNSIGNED_BYTE, mouth);
        drawTextured(gr, gr.mouth, quad(x0, y0, cw / k, ch / k, 0, 0, cw / mouth.width, ch / mouth.height), xform, true);
      }
      // The mesh: one draw of the triangles that can move (the photo's own pixels, warped).
      meshVertices(mesh, pos, vertices);
      g.useProgram(gr.textured.p);
      g.uniform4fv(gr.textured.xform, xform);
      g.bindTexture(g.TEXTURE_2D, gr.photo);
      g.bindBuffer(g.ARRAY_BUFFER, gr.meshBuffer);
      g.bufferSubData(g.ARRAY_BUFFER, 0, vertices);
      layout(gr.meshBuffer, TEXTURED_STRIDE, [2, 1]);
      g.bindBuffer(g.ELEMENT_ARRAY_BUFFER, gr.meshIndex);
      g.disable(g.BLEND);
      g.drawElements(g.TRIANGLES, order.length, g.UNSIGNED_SHORT, 0);
      // The lips' edges over the open mouth, antialiased by hand.
      if (isOpen) {
        const feather = holeFeather(mesh, pos, px);
        if (feather.length) drawTextured(gr, gr.photo, feather, xform, true);
      }
      // Closing lids: tinted with their own skin, a soft lash line.
      const lids = lidVertices(mesh, pos, pose, parts.lidTone, px);
      if (lids.length) {
        g.useProgram(gr.colour.p);
        g.uniform4fv(gr.colour.xform, xform);
        g.bindBuffer(g.ARRAY_BUFFER, gr.scratch);
        g.bufferData(g.ARRAY_BUFFER, lids, g.STREAM_DRAW);
        layout(gr.scratch, COLOUR_STRIDE, [4]);
        g.enable(g.BLEND);
        g.drawArrays(g.TRIANGLES, 0, lids.length / COLOUR_STRIDE);
      }
      g.disable(g.SCISSOR_TEST);
      parts.publishLayout(t, pos, width, height, 'webgl');
    },
    dispose() {
      canvas.remove();
      g.getExtension('WEBGL_lose_context')?.loseContext();
    },
  };
}
