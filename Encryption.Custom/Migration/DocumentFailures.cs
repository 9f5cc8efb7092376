using System.Globalization;
using System.Net;
using Encryption.Custom.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Encryption.Custom.Migration;

/// <summary>
/// Records a document the job could not bring to its target (in place or by a copy): counted with its failure and
/// logged under the stored id and partition key, which is where the operator finds it. Reasons are the library's own
/// words or status codes: the service's error text may quote the request, so it is never passed on.
/// </summary>
internal sealed class DocumentFailures(MigrationCounters counters, ILogger? logger)
{
    public void Fail(StoredDocument document, EncryptionErrorKind? kind, string reason, string? errorType = null)
    {
        var failure = new EncryptionMigrationFailure(document.Id, document.PartitionKey.ToString(), kind, reason);
        counters.Failed(failure);
        if (logger is not null)
        {
            EncryptionLog.MigrationDocumentFailed(logger, failure.Id, failure.PartitionKey, errorType ?? kind?.ToString() ?? "unknown", reason);
        }
    }

    /// <summary>The service refused <paramref name="what"/> for good; the error type is the meter's (<see cref="ErrorTypes"/>).</summary>
    public void Refused(StoredDocument document, string what, HttpStatusCode status, string? subStatus)
    {
        int code = (int)status;
        Fail(
            document,
            null,
            string.Create(CultureInfo.InvariantCulture, $"The service refused the {what} with status {code} (substatus {subStatus ?? "0"})."),
            ErrorTypes.ForStatus(code));
    }
}
