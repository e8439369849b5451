import { BrowserRouter } from 'react-router';
import { routerBasename } from '../lib/config';
import { AppProviders } from './providers';
import { AppRoutes } from './router';

export function App() {
  return (
    <AppProviders>
      <BrowserRouter basename={routerBasename}>
        <AppRoutes />
      </BrowserRouter>
    </AppProviders>
  );
}
