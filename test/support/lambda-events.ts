// AWS Lambda HTTP events as AWS documents them (API Gateway REST and HTTP API payloads, a
// Function URL, an ALB target with and without multi-value headers), typed by @types/aws-lambda,
// so a field the adapter reads that AWS does not send fails to compile here.
import type {
  ALBEvent,
  APIGatewayProxyEvent,
  APIGatewayProxyEventV2,
  LambdaFunctionURLEvent,
} from 'aws-lambda';

/** How a test event carries its body. */
export interface EventBody {
  body: string;
  base64?: boolean;
}

const encodedBody = ({ body, base64 }: EventBody) => (base64 ? Buffer.from(body).toString('base64') : body);

/** API Gateway REST API (payload 1.0): decoded query values, headers single and multi-valued. */
export function restEvent(
  path: string,
  query: Record<string, string>,
  input: EventBody,
): APIGatewayProxyEvent {
  const headers = { 'Content-Type': 'application/json', Host: 'abc123.execute-api.us-east-1.amazonaws.com' };
  return {
    resource: '/{proxy+}',
    path,
    httpMethod: 'POST',
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    queryStringParameters: query,
    multiValueQueryStringParameters: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])),
    pathParameters: { proxy: path.slice(1) },
    stageVariables: null,
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: 'POST',
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '203.0.113.7',
        user: null,
        userAgent: 'gateway',
        userArn: null,
      },
      path: `/prod${path}`,
      stage: 'prod',
      requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
      requestTimeEpoch: 1_700_000_000_000,
      resourceId: '123456',
      resourcePath: '/{proxy+}',
    },
    body: encodedBody(input),
    isBase64Encoded: input.base64 ?? false,
  };
}

/** API Gateway HTTP API (payload 2.0): the raw query, headers joined. */
export function httpApiEvent(
  rawPath: string,
  rawQueryString: string,
  input: EventBody,
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString,
    headers: { 'content-type': 'application/json', host: 'abc123.execute-api.us-east-1.amazonaws.com' },
    requestContext: {
      accountId: '123456789012',
      apiId: 'abc123',
      domainName: 'abc123.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'abc123',
      http: {
        method: 'POST',
        path: rawPath,
        protocol: 'HTTP/1.1',
        sourceIp: '203.0.113.7',
        userAgent: 'gateway',
      },
      requestId: 'JKJaXmPLvHcESHA=',
      routeKey: '$default',
      stage: '$default',
      time: '10/Mar/2026:00:03:59 +0000',
      timeEpoch: 1_700_000_000_000,
    },
    body: encodedBody(input),
    isBase64Encoded: input.base64 ?? false,
  };
}

/** A Lambda Function URL: payload 2.0; a JSON body arrives base64 unless its type is text. */
export function functionUrlEvent(
  rawPath: string,
  rawQueryString: string,
  input: EventBody,
): LambdaFunctionURLEvent {
  const event = httpApiEvent(rawPath, rawQueryString, input);
  return {
    ...event,
    requestContext: {
      ...event.requestContext,
      domainName: 'abcdefg.lambda-url.us-east-1.on.aws',
      domainPrefix: 'abcdefg',
      authorizer: undefined,
    },
  } as LambdaFunctionURLEvent;
}

/** An ALB target: query values as sent (still URL-encoded); multi-value headers when turned on. */
export function albEvent(
  path: string,
  query: Record<string, string>,
  input: EventBody,
  multiValue = false,
): ALBEvent {
  const headers = { 'content-type': 'application/json', host: 'crm-alb-123.us-east-1.elb.amazonaws.com' };
  const base = {
    requestContext: {
      elb: {
        targetGroupArn:
          'arn:aws:elasticloadbalancing:us-east-1:123456789012:targetgroup/crm/6d0ecf831eec9f09',
      },
    },
    httpMethod: 'POST',
    path,
    body: encodedBody(input),
    isBase64Encoded: input.base64 ?? false,
  };
  if (!multiValue) return { ...base, headers, queryStringParameters: query };
  return {
    ...base,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, [v]])),
    multiValueQueryStringParameters: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, [v]])),
  };
}
