import { createTheme } from '@mui/material/styles';
import { Limits } from '@persona/contract';

const fontFamily = [
  'Inter',
  'system-ui',
  '-apple-system',
  '"Segoe UI"',
  'Roboto',
  '"Helvetica Neue"',
  'Arial',
  'sans-serif',
].join(',');

/**
 * The portal theme. The `sm` breakpoint is the spec's mobile breakpoint (760 px): below it the
 * navigation becomes a drawer and tables become cards.
 */
const FOCUS_RING = '3px solid #4f46e5';

export const theme = createTheme({
  breakpoints: {
    values: { xs: 0, sm: Limits.mobileBreakpointPx, md: 960, lg: 1200, xl: 1536 },
  },
  palette: {
    mode: 'light',
    primary: { main: '#4f46e5', light: '#818cf8', dark: '#3730a3', contrastText: '#ffffff' },
    // WCAG AA: every main colour carries white text at 4.5:1 or more (green 5.0, amber 5.0, sky 5.9, red 6.5), and on their light alert backgrounds.
    secondary: { main: '#0369a1', contrastText: '#ffffff' },
    success: { main: '#15803d', contrastText: '#ffffff' },
    error: { main: '#b91c1c', contrastText: '#ffffff' },
    warning: { main: '#b45309', contrastText: '#ffffff' },
    background: { default: '#f5f6fb', paper: '#ffffff' },
    text: { primary: '#111827', secondary: '#4b5563' },
    divider: '#e5e7eb',
  },
  shape: { borderRadius: 10 },
  typography: {
    fontFamily,
    h1: { fontSize: '2.25rem', fontWeight: 700, letterSpacing: '-0.02em' },
    h2: { fontSize: '1.75rem', fontWeight: 700, letterSpacing: '-0.01em' },
    h3: { fontSize: '1.375rem', fontWeight: 650 },
    h4: { fontSize: '1.25rem', fontWeight: 650 },
    h5: { fontSize: '1.125rem', fontWeight: 600 },
    h6: { fontSize: '1rem', fontWeight: 600 },
    button: { textTransform: 'none', fontWeight: 600 },
  },
  components: {
    // A visible keyboard focus everywhere (WCAG 2.4.7): MUI's own is a faint grey fill on menu links and icon buttons.
    MuiButtonBase: {
      styleOverrides: { root: { '&.Mui-focusVisible': { outline: FOCUS_RING, outlineOffset: 2 } } },
    },
    MuiCssBaseline: {
      styleOverrides: {
        'a:focus-visible, [tabindex]:focus-visible': { outline: FOCUS_RING, outlineOffset: 2 },
        // Toasts (app/toaster.tsx) sit below the top bar.
        '.persona-toasts': { marginTop: 56 },
      },
    },
    MuiButton: {
      defaultProps: { disableElevation: true },
      styleOverrides: { root: { borderRadius: 8 }, sizeLarge: { paddingTop: 10, paddingBottom: 10 } },
    },
    MuiPaper: {
      styleOverrides: { rounded: { borderRadius: 14 } },
    },
    MuiAppBar: {
      defaultProps: { elevation: 0, color: 'inherit' },
    },
    MuiOutlinedInput: {
      styleOverrides: { root: { backgroundColor: '#ffffff' } },
    },
    MuiAlert: {
      styleOverrides: { root: { borderRadius: 10 } },
    },
    MuiFormHelperText: {
      // A disabled field's helper often says why it is disabled ('Only an administrator can change it'):
      // readable at 4.5:1, not MUI's disabled grey (2.7:1).
      styleOverrides: { root: ({ theme }) => ({ '&.Mui-disabled': { color: theme.palette.text.secondary } }) },
    },
    MuiLink: {
      // Links in text are told apart by more than colour (WCAG 1.4.1).
      defaultProps: { underline: 'always' },
    },
  },
});
