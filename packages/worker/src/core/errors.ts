/**
 * The worker's error family, at the bottom of the package: providers throw it, every floor above
 * catches it (the conversation's apology, metrics, the logs).
 */

/** A provider answered badly or not at all: the visitor hears a short apology, the owner sees the log line. */
export class ProviderError extends Error {
  constructor(
    /** e.g. 'openai-compatible', 'rest', 'dialogflow'. */
    readonly provider: string,
    message: string,
    /** The provider's HTTP status, when there was one. */
    readonly status?: number,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}
