import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Repository } from 'typeorm';
import { KeyRing } from '../../platform/crypto/keyring';
import { InvalidInputError, NotFoundError } from '../../platform/http/domain-errors';
import { OutboundError, OutboundHttp } from '../../platform/outbound/outbound-http';
import { connectorTypeOf, contentKeyOf, splitConfiguration } from './connector-config';
import { ContentConnectorEntity } from './entities/content-connector.entity';

/** ConnectorSchema */
export interface ConnectorView {
  connectorId: string;
  contentConnectorType: string;
  configuration: Record<string, unknown>;
  additionalInstanceInformation?: Record<string, unknown>;
  enabled: boolean;
}

/**
 * Content connectors (GetConnectorsList, CreateConnector, UpdateConnector, DeleteConnector): where an application keeps
 * course packages, S3 (a bucket and prefix) or HTTP (a base URL). Imports read packages from them (`download`).
 */
@Injectable()
export class ContentConnectorsService {
  constructor(
    @InjectRepository(ContentConnectorEntity) private readonly rows: Repository<ContentConnectorEntity>,
    private readonly keyRing: KeyRing,
    private readonly outbound: OutboundHttp,
  ) {}

  async list(appId: string, additional: boolean): Promise<{ connectorEntries: ConnectorView[] }> {
    const rows = await this.rows.find({ where: { appId }, order: { createdAt: 'ASC', id: 'ASC' } });
    return { connectorEntries: rows.map((r) => this.view(r, additional)) };
  }

  async create(appId: string, body: { contentConnectorType: string; configuration: Record<string, unknown>; enabled?: boolean }): Promise<{ result: string }> {
    const type = connectorTypeOf(body.contentConnectorType);
    const { configuration, secrets } = splitConfiguration(type, body.configuration);
    const now = new Date();
    const id = randomUUID();
    await this.rows.save(Object.assign(new ContentConnectorEntity(), { appId, id, type, configuration, secrets: this.keyRing.seal(JSON.stringify(secrets)), enabled: body.enabled !== false, createdAt: now, updatedAt: now }));
    return { result: id };
  }

  async update(appId: string, connectorId: string, body: { configuration?: Record<string, unknown>; enabled?: boolean }): Promise<void> {
    const row = await this.require(appId, connectorId);
    if (body.configuration) {
      const { configuration, secrets } = splitConfiguration(row.type, body.configuration, this.secretsOf(row));
      row.configuration = configuration;
      row.secrets = this.keyRing.seal(JSON.stringify(secrets));
    }
    if (body.enabled !== undefined) row.enabled = body.enabled;
    row.updatedAt = new Date();
    await this.rows.save(row);
  }

  async delete(appId: string, connectorId: string): Promise<void> {
    await this.require(appId, connectorId);
    await this.rows.delete({ appId, id: connectorId });
  }

  async purgeApplication(appId: string): Promise<void> {
    await this.rows.delete({ appId });
  }

  /** Checks an import's reference before its job is queued: 400 for an unknown or disabled connector, or a bad key. */
  async checkReference(appId: string, connectorId: string | undefined, key: string | undefined): Promise<{ connectorId: string; key: string }> {
    const row = connectorId ? await this.rows.findOneBy({ appId, id: connectorId }) : null;
    if (!row) throw new InvalidInputError(`connectorReferenceRequest.connectorId: no connector '${connectorId ?? ''}'`);
    if (!row.enabled) throw new InvalidInputError(`connectorReferenceRequest.connectorId: connector '${row.id}' is disabled`);
    return { connectorId: row.id, key: contentKeyOf(key) };
  }

  /** Streams a package from a connector to a file, at most maxBytes; returns its file name and content type. */
  async download(appId: string, connectorId: string, key: string, file: string, maxBytes: number): Promise<{ fileName: string; contentType?: string }> {
    const row = await this.rows.findOneBy({ appId, id: connectorId });
    if (!row || !row.enabled) throw new OutboundError(`The content connector '${connectorId}' no longer exists or is disabled`, 404);
    const cfg = row.configuration ?? {};
    const secrets = this.secretsOf(row);
    const fileName = key.split('/').pop() || 'package';
    if (row.type === 'HTTP') {
      const base = String(cfg.url).replace(/\/+$/, '');
      const headers: Record<string, string> = { ...((secrets.headers as Record<string, string> | undefined) ?? {}) };
      if (cfg.username !== undefined) headers.authorization = `Basic ${Buffer.from(`${cfg.username as string}:${(secrets.password as string | undefined) ?? ''}`).toString('base64')}`;
      const got = await this.outbound.download(`${base}/${key.split('/').map(encodeURIComponent).join('/')}`, file, { maxBytes, headers });
      return { fileName, contentType: got.contentType };
    }
    const endpoint = cfg.endpoint as string | undefined;
    const where = endpoint ?? `https://s3.${(cfg.region as string | undefined) ?? 'us-east-1'}.amazonaws.com`;
    // The endpoint is the application's: the outbound policy (public addresses only, unless the operator allows private ones).
    this.refusedAsPermanent(() => this.outbound.checkUrl(where));
    const client = new S3Client({
      region: (cfg.region as string | undefined) ?? 'us-east-1',
      endpoint,
      requestHandler: { ...this.outbound.guardedAgents(where), requestTimeout: 120_000 },
      forcePathStyle: cfg.endpoint !== undefined,
      credentials: { accessKeyId: String(cfg.accessKeyId), secretAccessKey: String(secrets.secretAccessKey) },
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    const objectKey = `${(cfg.prefix as string | undefined) ?? ''}${key}`;
    try {
      const res = await client.send(new GetObjectCommand({ Bucket: String(cfg.bucket), Key: objectKey }));
      if ((res.ContentLength ?? 0) > maxBytes) throw new OutboundError(`s3://${String(cfg.bucket)}/${objectKey} is ${res.ContentLength} bytes, more than the limit of ${maxBytes}`, 413);
      let bytes = 0;
      const cap = new Transform({
        transform(chunk: Buffer, _enc, done) {
          bytes += chunk.length;
          if (bytes > maxBytes) done(new OutboundError(`s3://${String(cfg.bucket)}/${objectKey} is more than the limit of ${maxBytes} bytes`, 413));
          else done(null, chunk);
        },
      });
      await pipeline(res.Body as Readable, cap, createWriteStream(file));
      return { fileName, contentType: res.ContentType };
    } catch (err) {
      await unlink(file).catch(() => undefined);
      // The policy's refusals (checked on the address connected to) do not get better with retries.
      if (err instanceof OutboundError) throw err.status === undefined ? new OutboundError(err.message, 403) : err;
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      throw new OutboundError(`reading s3://${String(cfg.bucket)}/${objectKey} failed: ${(err as Error).name} ${(err as Error).message}`, status);
    } finally {
      client.destroy();
    }
  }

  private refusedAsPermanent(check: () => unknown): void {
    try {
      check();
    } catch (err) {
      throw new OutboundError((err as Error).message, 403);
    }
  }

  private view(row: ContentConnectorEntity, additional: boolean): ConnectorView {
    return {
      connectorId: row.id,
      contentConnectorType: row.type,
      configuration: row.configuration ?? {},
      ...(additional ? { additionalInstanceInformation: { createDate: row.createdAt.toISOString(), updated: row.updatedAt.toISOString() } } : {}),
      enabled: row.enabled,
    };
  }

  private secretsOf(row: ContentConnectorEntity): Record<string, unknown> {
    return row.secrets ? (JSON.parse(this.keyRing.open(row.secrets)) as Record<string, unknown>) : {};
  }

  private async require(appId: string, connectorId: string): Promise<ContentConnectorEntity> {
    const row = await this.rows.findOneBy({ appId, id: connectorId });
    if (!row) throw new NotFoundError('Content connector', connectorId);
    return row;
  }
}
