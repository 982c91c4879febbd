// The hosted pages: one bundle, the page chosen by the last path segment under /hosted/.
import { createRoot } from 'react-dom/client';
import '@keyzone/ui/theme.css';
import './hosted.css';
import { Shell } from '@keyzone/ui/browser';
import { ConsentPage } from './pages/consent';
import { LandingPage } from './pages/landing';
import { RecoverPage, ResetPasswordPage } from './pages/recover';
import { SignInPage } from './pages/sign-in';
import { SignUpPage } from './pages/sign-up';

const PAGES = {
  'sign-in': { title: 'Sign in', Page: SignInPage },
  'sign-up': { title: 'Create an account', Page: SignUpPage },
  recover: { title: 'Reset your password', Page: RecoverPage },
  'reset-password': { title: 'Choose a new password', Page: ResetPasswordPage },
  consent: { title: 'Allow access', Page: ConsentPage },
  '': { title: 'Keyzone auth server', Page: LandingPage },
} as const;

const name = location.pathname.slice(location.pathname.lastIndexOf('/') + 1);
const page = PAGES[name as keyof typeof PAGES] ?? PAGES[''];
document.title = `${page.title} · Keyzone`;

createRoot(document.getElementById('root')!).render(
  <Shell product="Keyzone" narrow>
    <page.Page />
  </Shell>,
);
