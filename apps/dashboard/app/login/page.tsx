import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentSession } from '@/lib/current-user';
import { safeReturnPath } from '@/lib/navigation';
import { LoginForm } from './login-form';

export const metadata: Metadata = { title: 'Sign in' };

export default async function LoginPage({ searchParams }: { searchParams: Promise<{ next?: string | string[] }> }) {
  // Already signed in (a bookmark, the back button): go where the sign-in would have led.
  const session = await currentSession();
  if (session.status === 'signed-in') {
    const { next } = await searchParams;
    const target = safeReturnPath(typeof next === 'string' ? next : null);
    redirect(target.startsWith('/login') ? '/' : target);
  }
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
