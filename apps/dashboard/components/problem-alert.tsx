import { restatesFields, type ProblemInfo } from '@/lib/problem';

/** An API error as the user should see it: the problem+json detail, field errors, a request id. */
export function ProblemAlert({ problem, title, showFields = true }: { problem: ProblemInfo; title?: string; showFields?: boolean }) {
  // A 400's detail names each field as the list below does: say it once, in the list.
  const listed = showFields && restatesFields(problem);
  return (
    <div className="alert" role="alert">
      {title && <p className="alert__title">{title}</p>}
      <p style={{ margin: 0 }}>{listed ? 'Some fields were not accepted:' : problem.detail}</p>
      {showFields && problem.errors.length > 0 && (
        <ul>
          {problem.errors.map((e) => (
            <li key={`${e.path}:${e.message}`}>
              <span className="mono">{e.path}</span>: {e.message}
            </li>
          ))}
        </ul>
      )}
      {problem.requestId && <p className="alert__meta">Request id: {problem.requestId}</p>}
    </div>
  );
}

