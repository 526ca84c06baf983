import { z } from 'zod';
import { findControlChar } from '../text';
import type { Rejection } from './rejection';

/**
 * Fields every change request shares (ARCHITECTURE.md "Change request"), in one file so the failout
 * actions (schema.ts) and the drill actions (drill-schema.ts) cannot drift.
 */

/**
 * Free text an operator types (who, why): bounded, and without control characters (C0, DEL, C1, bidi
 * and line-separator controls). It is shown in other operators' terminals and consoles; an ESC
 * sequence in it could draw a fake "all clear" there (issue 14).
 */
export const freeText = (max: number) =>
  z
    .string()
    .max(max)
    .superRefine((text, ctx) => {
      const found = findControlChar(text);
      if (found) ctx.addIssue({ code: 'custom', message: `must not contain control characters (${found.codePoint} at index ${found.index})` });
    });

/** The fields of every request, whatever its action. */
export const commonFields = {
  /** Schema version; always 1. */
  version: z.literal(1),
  /** Unique id: the SQS MessageDeduplicationId and the name of the request record; a valid name. */
  requestId: z.string(),
  /** The D2 cluster to fail out or restore: the SQS MessageGroupId; a valid name. */
  cluster: z.string(),
  /** Who asked (e.g. an e-mail address); at most 256 characters, no control characters. Stored in the request record and, for a failout, in the failout. */
  requestedBy: freeText(256).optional(),
  /** Why (e.g. an incident id); at most 1024 characters, no control characters. A failout stores it with its window. */
  reason: freeText(1024).optional(),
  /** Overrides only the peer-state checks (peer failed out, no peer with hosts). */
  force: z.boolean().optional(),
};

/** The {@link commonFields} of any action's input, as its schema read them. */
export type CommonFieldsInput = z.output<z.ZodObject<typeof commonFields>>;

/** The normalised fields every request has, whatever its action: `force` defaulted, absent texts left out. */
export function requestBaseOf(input: CommonFieldsInput): ChangeRequestBase {
  return {
    version: 1,
    requestId: input.requestId,
    cluster: input.cluster,
    ...(input.requestedBy === undefined ? {} : { requestedBy: input.requestedBy }),
    ...(input.reason === undefined ? {} : { reason: input.reason }),
    force: input.force ?? false,
  };
}

/** A peer of a failout (or of a drill's failout). */
export const peerSchema = z.strictObject({
  /** The peer cluster that takes the redirected traffic; a valid name, not the cluster itself, listed once. */
  cluster: z.string(),
  /** Relative share of the redirected traffic; default 1. */
  weight: z.number().int().positive().optional(),
});

/** An inclusive range of the 100 traffic buckets. */
export const bucketsSchema = z
  .strictObject({
    /** First bucket redirected, 0–99. */
    from: z.number().int().min(0).max(99),
    /** Last bucket redirected (inclusive), 0–99; not below `from`. */
    to: z.number().int().min(0).max(99),
  })
  .refine((b) => b.from <= b.to, { message: 'from must not be greater than to' });

/** Fields of every normalised request. */
export interface ChangeRequestBase {
  /** Schema version; always 1. */
  readonly version: 1;
  /** Unique id of the request; names its request record. */
  readonly requestId: string;
  /** The D2 cluster to fail out or restore. */
  readonly cluster: string;
  /** Who asked, when the request said. */
  readonly requestedBy?: string;
  /** Why, when the request said. */
  readonly reason?: string;
  /** Overrides only the peer-state checks (peer failed out, no peer with hosts); default false. */
  readonly force: boolean;
}

/** A parse's result: the validated, normalised request, or why it is refused for good. */
export type ParseOutcome<R> =
  | {
      /** The request is valid. */
      readonly ok: true;
      /** The validated, normalised request. */
      readonly request: R;
    }
  | {
      /** The request is refused for good. */
      readonly ok: false;
      /** Why: the first reason found and every problem. */
      readonly rejection: Rejection;
    };
