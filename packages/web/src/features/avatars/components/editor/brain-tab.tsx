import { useCallback, useEffect, useState } from 'react';
import { createPortal } from 'react-dom';
import { FormProvider } from 'react-hook-form';
import Box from '@mui/material/Box';
import useMediaQuery from '@mui/material/useMediaQuery';
import type { Theme } from '@mui/material/styles';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import type { TInfoPanelItem } from '@persona/contract';
import { InfoPanel, useInfoPanel } from '../../../../components/side-panel';
import { BrainHelpContext } from './brain/fields';
import { EDITOR_SIDE_SLOT_ID, type BrainSubTab } from '../../lib/editor-model';
import { useEditorSession } from './editor-session';
import { Foundations } from './brain/foundations';
import { FunctionsSubTab, functionsHelp } from './brain/functions-subtab';
import { brainHelp, type BrainHelpKey } from './brain/help';
import { KnowledgeSubTab, knowledgeHelp } from './brain/knowledge-subtab';

/**
 * The Brain tab (loaded on demand by the editor): FOUNDATIONS (mode, engine, speech), KNOWLEDGE
 * BASE and FUNCTIONS. Its form lives in the editor session (brainForm), so it survives tab
 * changes and is saved with the avatar; the speech forms and the sub-tabs read it as their
 * react-hook-form context. The sub-tab is the session's too: a save or a tab change refused for
 * the Brain form's errors brings FOUNDATIONS up, where they are shown.
 */
export function BrainTab() {
  const { brainForm, brainSubTab: subTab, setBrainSubTab } = useEditorSession();
  const info = useInfoPanel(brainHelp, 'foundations');
  // The speech forms and the sub-tabs hand over their own help items; Foundations' fields a key.
  const [item, setItem] = useState<TInfoPanelItem | null>(null);
  const { show } = info;
  const showKey = useCallback(
    (key: BrainHelpKey) => {
      setItem(null);
      show(key);
    },
    [show],
  );
  // Each sub-tab starts with its own help (also when the session switches it).
  useEffect(() => {
    if (subTab === 'foundations') showKey('foundations');
    else setItem(subTab === 'knowledge' ? knowledgeHelp : functionsHelp);
  }, [subTab, showKey]);
  const shown = item ?? info.item;
  // Wide screens: the help sits in the editor's right-hand column, under the preview.
  const isWide = useMediaQuery((theme: Theme) => theme.breakpoints.up('lg'));
  const [slot, setSlot] = useState<HTMLElement | null>(null);
  useEffect(() => setSlot(isWide ? document.getElementById(EDITOR_SIDE_SLOT_ID) : null), [isWide]);
  const content = (
    <>
      {subTab === 'foundations' ? <Foundations onHelp={setItem} /> : null}
      {subTab === 'knowledge' ? <KnowledgeSubTab onHelp={setItem} /> : null}
      {subTab === 'functions' ? <FunctionsSubTab onHelp={setItem} /> : null}
    </>
  );
  return (
    <FormProvider {...brainForm}>
      <Box>
        <Tabs
          value={subTab}
          onChange={(_e, v: BrainSubTab) => setBrainSubTab(v)}
          aria-label="Brain"
          sx={{ mb: 2, borderBottom: 1, borderColor: 'divider', '& .MuiTab-root': { fontWeight: 700, fontSize: '0.78rem', minWidth: 0, px: 1.5 } }}
        >
          <Tab value="foundations" label="FOUNDATIONS" />
          <Tab value="knowledge" label="KNOWLEDGE BASE" />
          <Tab value="functions" label="FUNCTIONS" />
        </Tabs>
        <BrainHelpContext.Provider value={showKey}>
          {/* The info panel: the editor's right-hand column when wide, else beside or below the form.
              The sub-tabs keep their place in the tree either way (a width change must not
              remount them and close an open dialog). */}
          <Box sx={{ containerType: 'inline-size' }}>
            <Box
              sx={{
                display: 'grid',
                gap: 2,
                gridTemplateColumns: '1fr',
                '@container (min-width: 820px)': { gridTemplateColumns: slot ? '1fr' : 'minmax(0, 1fr) 280px' },
              }}
            >
              {content}
              {slot ? (
                createPortal(<InfoPanel item={shown} />, slot)
              ) : (
                <Box sx={{ position: 'sticky', top: 88, alignSelf: 'start' }}>
                  <InfoPanel item={shown} />
                </Box>
              )}
            </Box>
          </Box>
        </BrainHelpContext.Provider>
      </Box>
    </FormProvider>
  );
}
