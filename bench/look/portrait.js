// Today's image avatar (the basis of candidate b): the layered 2D portrait from the catalogue
// (backdrop, base, eyes, one mouth shape), stacked as the page composes it.
/* global document */
export async function buildPortrait({ stage, persona }) {
  const dir = `/catalog/portraits/${persona}`;
  const bg = stage.querySelector('#bg');
  bg.style.background = '#E0E7FF';
  const layer = (name) => {
    const img = document.createElement('img');
    img.src = `${dir}/${name}.svg`;
    img.style.cssText = 'position:absolute;inset:0;width:100%;height:100%;object-fit:contain';
    bg.appendChild(img);
    return img;
  };
  const layers = ['backdrop', 'base', 'eyes-open', 'mouth-rest'].map(layer);
  let bytes = 0;
  for (const name of ['backdrop', 'base', 'eyes-open', 'eyes-closed', 'mouth-rest', 'mouth-closed', 'mouth-open', 'mouth-wide', 'mouth-round', 'mouth-teeth', 'mouth-narrow']) {
    bytes += (await (await fetch(`${dir}/${name}.svg`)).arrayBuffer()).byteLength;
  }
  const ready = () => Promise.all(layers.map((img) => img.decode().catch(() => {})));
  await ready();
  return {
    bytes,
    framing: null,
    setMouth(open) {
      layers[3].src = `${dir}/mouth-${open > 0.5 ? 'open' : 'rest'}.svg`;
    },
    setBlink(amount) {
      layers[2].src = `${dir}/eyes-${amount > 0.5 ? 'closed' : 'open'}.svg`;
    },
    ready,
  };
}
