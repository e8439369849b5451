// Today's look: the catalogue GLB as the product's three.js stage draws it (studio lights,
// upper-body framing of render/three-avatar.ts), over a flat background colour.
import { AmbientLight, Box3, DirectionalLight, HemisphereLight, Vector3 } from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

export async function buildToday({ scene, camera, stage, persona }) {
  stage.querySelector('#bg').style.background = '#E0E7FF';
  scene.add(new HemisphereLight(0xffffff, 0x8a94a6, 1.3));
  const key = new DirectionalLight(0xffffff, 2.0);
  key.position.set(-1, 1.4, 2);
  scene.add(key);
  const fill = new DirectionalLight(0xffffff, 0.8);
  fill.position.set(1, 0.6, 1.5);
  scene.add(fill);
  scene.add(new AmbientLight(0xffffff, 0.15));
  const url = `/catalog/models/${persona}-upper.glb`;
  const bytes = (await (await fetch(url)).arrayBuffer()).byteLength;
  const gltf = await new GLTFLoader().loadAsync(url);
  const avatar = gltf.scene;
  scene.add(avatar);
  avatar.updateWorldMatrix(true, true);
  const meshes = [];
  avatar.traverse((o) => {
    if (o.isMesh && o.morphTargetDictionary) meshes.push(o);
  });
  let head = null;
  avatar.traverse((o) => {
    if (!head && /^head$/i.test(o.name)) head = o;
  });
  const box = new Box3().setFromObject(avatar);
  const top = box.max.y;
  const hw = head.getWorldPosition(new Vector3());
  camera.position.set(hw.x, top - 0.16, hw.z + 1.05);
  camera.lookAt(hw.x, top - 0.2, hw.z);
  return {
    bytes,
    framing: { top, centre: hw.clone().setY(0) },
    setMouth(open) {
      for (const m of meshes) {
        const i = m.morphTargetDictionary.viseme_aa;
        if (i !== undefined) m.morphTargetInfluences[i] = open;
      }
    },
    setBlink(amount) {
      for (const m of meshes) for (const name of ['eyeBlinkLeft', 'eyeBlinkRight']) {
        const i = m.morphTargetDictionary[name];
        if (i !== undefined) m.morphTargetInfluences[i] = amount;
      }
    },
  };
}
