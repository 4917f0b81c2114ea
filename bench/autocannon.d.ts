// Minimal typing of the autocannon API used by bench/api-load.ts (the package ships no types).
declare module 'autocannon' {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      setupRequest?: (req: Request) => Request;
    }
    interface Histogram {
      average: number;
      p50: number;
      p99: number;
      mean: number;
      total: number;
    }
    interface Result {
      requests: Histogram;
      latency: Histogram;
      non2xx: number;
      errors: number;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      pipelining?: number;
      headers?: Record<string, string>;
      requests?: Request[];
      method?: string;
      body?: string;
      timeout?: number;
    }
  }
  function autocannon(opts: autocannon.Options, cb: (err: Error | null, res: autocannon.Result) => void): unknown;
  export default autocannon;
}
