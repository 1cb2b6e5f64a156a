import Link from 'next/link';

export default function NotFound() {
  return (
    <main className="auth-page">
      <div className="auth-card card state">
        <p className="state__title">Page not found</p>
        <Link href="/">Go to the dashboard</Link>
      </div>
    </main>
  );
}
