// The public price catalogue (spec: `getPricing`): plans with a monthly grant in whole credits and a price in
// USD cents, credit packs, and the per-character rate in millicredits. Unpriced paid plans are omitted.
export const CATALOGUE = {
  currency: 'usd' as const,
  translationMcPerChar: 1,
  plans: [
    { id: 'free', name: 'Free', monthlyCredits: 100, priceCents: 0 },
    { id: 'team', name: 'Team', monthlyCredits: 5_000, priceCents: 4_900 },
    { id: 'business', name: 'Business', monthlyCredits: 25_000, priceCents: 19_900 },
  ],
  packs: [
    { id: 'pack-1k', credits: 1_000, priceCents: 1_200 },
    { id: 'pack-10k', credits: 10_000, priceCents: 9_900 },
  ],
};
