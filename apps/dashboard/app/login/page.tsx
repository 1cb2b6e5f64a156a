import type { Metadata } from 'next';
import { LoginForm } from './login-form';

export const metadata: Metadata = { title: 'Sign in' };

export default function LoginPage() {
  return (
    <main className="auth-page">
      <div className="auth-card card">
        <div className="auth-card__brand">
          <h1>Tollgate</h1>
          <p className="muted">Sign in to the admin dashboard</p>
        </div>
        <LoginForm />
      </div>
    </main>
  );
}
