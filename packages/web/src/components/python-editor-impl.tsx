import CodeMirror from '@uiw/react-codemirror';
import { python } from '@codemirror/lang-python';
import type { PythonEditorProps } from './python-editor';

const extensions = [python()];

export default function PythonEditorImpl({ value, onChange, onFocus, readOnly = false, label, height }: PythonEditorProps & { height: number }) {
  return (
    <CodeMirror
      value={value}
      onChange={onChange}
      onFocus={onFocus}
      readOnly={readOnly}
      editable={!readOnly}
      extensions={extensions}
      height={`${height}px`}
      aria-label={label}
      indentWithTab
      basicSetup={{ lineNumbers: true, foldGutter: true, highlightActiveLine: !readOnly, tabSize: 4 }}
    />
  );
}
