import CodeMirror from '@uiw/react-codemirror';
import { json } from '@codemirror/lang-json';
import type { JsonEditorProps } from './json-editor';

const extensions = [json()];

export default function JsonEditorImpl({ value, onChange, readOnly = false, label, minHeight = 320 }: JsonEditorProps) {
  return (
    <CodeMirror
      value={value}
      onChange={onChange}
      readOnly={readOnly}
      editable={!readOnly}
      extensions={extensions}
      minHeight={`${minHeight}px`}
      maxHeight="560px"
      aria-label={label}
      basicSetup={{ lineNumbers: true, foldGutter: true, highlightActiveLine: !readOnly }}
    />
  );
}
