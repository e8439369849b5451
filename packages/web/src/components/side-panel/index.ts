export { SidePanel, type SidePanelProps, type SidePanelKey } from './side-panel';
export { SidePanelLayout, type SidePanelLayoutProps } from './side-panel-layout';
export { EditorPanel, type EditorPanelProps } from './editor-panel';
export { InfoPanel, type InfoPanelProps } from './info-panel';
export { LoadFailure, type LoadFailureProps } from './load-failure';
export { useInfoPanel } from './use-info-panel';
