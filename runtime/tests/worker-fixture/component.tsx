// The component route form (seed 000's `Audit`): named schema exports and a synchronous default
// component that receives `input` and the request's `signal` as props.
import * as z from 'zod';
import { Agent } from '@agent-bundle/runtime';

export const inputSchema = z.object({ root: z.string() });
export const resultSchema = z.object({ root: z.string(), signal: z.boolean() });

export default function Audit({ input, signal }: { input: { root: string }; signal: AbortSignal }) {
  return <Agent.Result value={{ root: input.root, signal: signal instanceof AbortSignal && !signal.aborted }} />;
}
