# One image recipe, two targets: `api` (migrates on start, then serves) and `dashboard`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1 NX_DAEMON=false CHECKPOINT_DISABLE=1
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/dashboard/package.json apps/dashboard/
COPY libs/contracts/package.json libs/contracts/
COPY libs/rate-limit/package.json libs/rate-limit/
COPY libs/nest-guard/package.json libs/nest-guard/
COPY prisma prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx nx run-many -t build

FROM build AS api
ENV NODE_ENV=production
EXPOSE 3000
CMD ["sh", "-c", "npx tsx scripts/migrate.ts && npx tsx prisma/seed.ts && node apps/api/dist/main.js"]

FROM build AS dashboard
ENV NODE_ENV=production
EXPOSE 3001
CMD ["sh", "-c", "npx next start apps/dashboard -p ${DASHBOARD_PORT:-3001}"]
